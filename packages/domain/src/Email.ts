/**
 * E-mail addresses: a pragmatic syntax check (the mailbox is proven by delivery, not by a regex) and the
 * normal form we compare and hash.
 */
import { Schema } from "effect"

/** An e-mail address: `local@domain.tld`, no spaces, at most 254 characters. */
export const Email = Schema.String.pipe(
  Schema.check(
    Schema.isMaxLength(254),
    Schema.isPattern(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, {
      expected: "an e-mail address",
      message: "Expected an e-mail address (local@domain.tld)"
    })
  )
)
export type Email = typeof Email.Type

/** The normal form of an address: trimmed and lower-cased. */
export const normalizeEmail = (email: string): string => email.trim().toLowerCase()
