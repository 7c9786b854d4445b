/**
 * E-mail addresses: a pragmatic syntax check (the mailbox is proven by delivery, not by a regex) and the normal form
 * we compare, store and hash, applied once when a value is decoded.
 */
import { Schema, SchemaTransformation } from "effect"
import { isCharacterLength, refusedCharacter } from "./Text.ts"

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

// RFC 5321 §4.1.2 (its `atext` is RFC 5322's), widened by RFC 6531 to non-ASCII characters. Controls, format
// characters (bidi overrides, zero-width ones) and separators are never part of an address (`\p{C}`, `\p{Z}`).
const nonAscii = "[^\\u0000-\\u007f\\p{C}\\p{Z}]"
const atext = `(?:[a-z0-9!#$%&'*+\\-/=?^_\\u0060{|}~]|${nonAscii})`
// A domain's labels are letters, digits and inner hyphens (RFC 5321's `sub-domain`), IDN U-labels included.
const letDig = "(?:[a-z0-9]|[^\\u0000-\\u007f\\p{C}\\p{Z}\\p{P}\\p{S}])"
const label = `${letDig}(?:(?:${letDig}|-)*${letDig})?`
/** `Dot-string "@" Domain`, the domain with at least two labels. Quoted local parts are refused: RFC 5321 says not to send them. */
const mailboxShape = new RegExp(`^${atext}+(?:\\.${atext}+)*@${label}(?:\\.${label})+$`, "u")
const octets = (text: string) => new TextEncoder().encode(text).length

/**
 * Whether a normalised address is a mailbox by RFC 5321's rules: a dot-string local part of at most 64 octets, a
 * domain of letter-digit-hyphen labels of at most 63 octets each (255 in all), and no control, format or markup
 * character anywhere (`<`, `>`, quotes and spaces are not in `atext`).
 */
export const isMailbox = (address: string): boolean => {
  const at = address.lastIndexOf("@")
  const domain = address.slice(at + 1)
  return (
    !refusedCharacter(address) &&
    mailboxShape.test(address) &&
    octets(address.slice(0, at)) <= 64 &&
    octets(domain) <= 255 &&
    domain.split(".").every((part) => octets(part) <= 63)
  )
}

/**
 * An address mail is sent to (an invite's, an instant payment's): an `Email` that is also a mailbox by RFC 5321's
 * rules (`isMailbox`). Requests that make the service send mail decode with it; stored records keep `Email`.
 */
export const Mailbox = Email.check(
  Schema.makeFilter(isMailbox, {
    expected: "a mailbox (RFC 5321)",
    message: "Expected an e-mail address (local@domain.tld) without spaces, quotes, markup or control characters"
  })
)
