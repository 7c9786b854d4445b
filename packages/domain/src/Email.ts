/**
 * E-mail addresses: a pragmatic syntax check (the mailbox is proven by delivery, not by a regex) and the normal form
 * we compare, store and hash, applied once when a value is decoded.
 */
import { Schema, SchemaTransformation } from "effect"
import { isCharacterLength } from "./Text.ts"

/** The longest e-mail address (RFC 5321's path limit less its angle brackets). */
export const maxEmailLength = 254

/** The normal form of an address: trimmed and lower-cased. */
export const normalizeEmail = (email: string): string => email.trim().toLowerCase()

/** `local@domain.tld` without spaces: the shape of an address once normalised. */
const shape = "[^\\s@]+@[^\\s@]+\\.[^\\s@]+"
/** The same as sent: spaces around it are trimmed when decoding. */
const sentShape = new RegExp(`^\\s*${shape}\\s*$`, "u")

/**
 * An e-mail address in its normal form: decoding trims and lower-cases, then checks `local@domain.tld`, no spaces,
 * at most 254 characters. Request schemas use it, so nothing after decoding normalises again.
 */
export const Email = Schema.String.pipe(
  // Also before normalising, so the bound shows in OpenAPI (which describes what is sent) and long input stops early.
  Schema.check(
    isCharacterLength(0, maxEmailLength, {
      message: `Expected an e-mail address of at most ${maxEmailLength} characters`
    }),
    // The shape checked below once normalised, stated on what is sent (spaces around are trimmed).
    Schema.isPattern(sentShape, {
      expected: "an e-mail address",
      message: "Expected an e-mail address (local@domain.tld)",
      toJsonSchema: () => ({ format: "email", pattern: sentShape.source })
    })
  ),
  Schema.decode(SchemaTransformation.transform({ decode: normalizeEmail, encode: (email) => email })),
  Schema.check(
    isCharacterLength(0, maxEmailLength),
    Schema.isPattern(new RegExp(`^${shape}$`, "u"), {
      expected: "an e-mail address",
      message: "Expected an e-mail address (local@domain.tld)"
    })
  ),
  Schema.brand("Email")
)
export type Email = typeof Email.Type
