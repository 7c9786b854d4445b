/**
 * Users: a wallet that signed in, with the profile the team views show (SPEC §2.2, §2.4).
 */
import { Schema } from "effect"
import { normalizeEmail } from "../Email.ts"
import { WalletAddress, walletAddressOf } from "../Evm.ts"
import { UserId } from "../Ids.ts"
import { PostalAddressWithTimezone } from "../PostalAddress.ts"

/** Where a user is in onboarding (SPEC §2.2). */
export const Onboarding = Schema.Struct({
  onboarded: Schema.Boolean,
  step: Schema.String,
  role: Schema.String,
  moderation_status: Schema.String
})
export type Onboarding = typeof Onboarding.Type

/** A certification on a user's profile (SPEC §2.4). */
export const Certification = Schema.Struct({
  nanoid: Schema.String,
  title: Schema.String,
  website: Schema.String,
  file: Schema.String,
  year: Schema.Int
})

/**
 * A stored user. `wallet` is lower-cased and unique; `email` is lower-cased, empty when unknown; `payout_address`,
 * lower-cased, is where teams pay them instead of their svc account, once they proved it (decision 0108).
 */
export const User = Schema.Struct({
  nanoid: UserId,
  wallet: WalletAddress,
  svcid: Schema.String,
  email: Schema.String,
  first_name: Schema.String,
  middle_name: Schema.String,
  last_name: Schema.String,
  avatar: Schema.String,
  phone: Schema.String,
  dob: Schema.String,
  address: PostalAddressWithTimezone,
  social: Schema.Struct({ linkedin: Schema.String, discord: Schema.String, website: Schema.String, x: Schema.String }),
  certifications: Schema.Array(Certification),
  onboarding: Onboarding,
  created_at: Schema.String,
  payout_address: Schema.optionalKey(WalletAddress)
})
export type User = typeof User.Type

/** How events and lists name a user: first and last name, "" when neither is known. */
export const displayNameOf = (user: Pick<User, "first_name" | "last_name">): string =>
  `${user.first_name} ${user.last_name}`.trim()

/** The empty postal address every new user starts with. */
export const emptyPostalAddress: PostalAddressWithTimezone = {
  line_1: "",
  line_2: "",
  city: "",
  state: "",
  country: "",
  zip_code: "",
  timezone: ""
}

/** A new user for a wallet seen for the first time at sign-in (DESIGN §5: `onboarding.step = initial`). */
export const newUser = (input: {
  readonly nanoid: UserId
  readonly wallet: string
  readonly svcid?: string | undefined
  readonly email?: string | undefined
  readonly first_name?: string | undefined
  readonly last_name?: string | undefined
  readonly created_at: string
}): User => ({
  nanoid: input.nanoid,
  wallet: walletAddressOf(input.wallet),
  svcid: input.svcid ?? "",
  email: normalizeEmail(input.email ?? ""),
  first_name: input.first_name ?? "",
  middle_name: "",
  last_name: input.last_name ?? "",
  avatar: "",
  phone: "",
  dob: "",
  address: emptyPostalAddress,
  social: { linkedin: "", discord: "", website: "", x: "" },
  certifications: [],
  onboarding: { onboarded: false, step: "initial", role: "payer", moderation_status: "pending" },
  created_at: input.created_at
})
