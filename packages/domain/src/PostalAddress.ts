/**
 * Postal addresses as the spec shows them on users, members and payment recipients.
 */
import { Schema } from "effect"

/** A postal address (SPEC §2.2, §2.3). */
export const PostalAddress = Schema.Struct({
  line_1: Schema.String,
  line_2: Schema.String,
  city: Schema.String,
  state: Schema.String,
  country: Schema.String,
  zip_code: Schema.String
})
export type PostalAddress = typeof PostalAddress.Type

/** A postal address with the holder's time zone (SPEC §2.4, a user's profile). */
export const PostalAddressWithTimezone = Schema.Struct({ ...PostalAddress.fields, timezone: Schema.String })
export type PostalAddressWithTimezone = typeof PostalAddressWithTimezone.Type

/** The postal part of an address with a time zone. */
export const postalAddressOf = ({ line_1, line_2, city, state, country, zip_code }: PostalAddress): PostalAddress => ({
  line_1,
  line_2,
  city,
  state,
  country,
  zip_code
})
