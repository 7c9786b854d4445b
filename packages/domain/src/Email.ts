/**
 * E-mail addresses: a pragmatic syntax check (the mailbox is proven by delivery, not by a regex) and the normal form
 * we compare, store and hash, applied once when a value is decoded.
 */
import { Schema, SchemaTransformation } from "effect"

/** The normal form of an address: trimmed and lower-cased. */
export const normalizeEmail = (email: string): string => email.trim().toLowerCase()

/**
 * An e-mail address in its normal form: decoding trims and lower-cases, then checks `local@domain.tld`, no spaces,
 * at most 254 characters. Request schemas use it, so nothing after decoding normalises again.
 */
export const Email = Schema.String.pipe(
  Schema.decode(SchemaTransformation.transform({ decode: normalizeEmail, encode: (email) => email })),
  Schema.check(
    Schema.isMaxLength(254),
    Schema.isPattern(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, {
      expected: "an e-mail address",
      message: "Expected an e-mail address (local@domain.tld)"
    })
  ),
  Schema.brand("Email")
)
export type Email = typeof Email.Type
