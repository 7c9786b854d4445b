/**
 * Money on the command line is dollars and cents (`12.34`); the API counts integer cents (DESIGN §5).
 */
import { Effect } from "effect"
import { badArgument, type CliFailure } from "./Failure.ts"

const amountPattern = /^(\d+)(?:\.(\d{1,2}))?$/

/**
 * Cents of a dollar amount such as `12.34`, `12.3` or `12`; refuses more than two decimals, signs, other text, and
 * zero unless `allowZero` (a rate may be 0; a payment may not).
 */
export const parseCents = (
  name: string,
  text: string,
  options: { readonly allowZero?: boolean } = {}
): Effect.Effect<number, CliFailure> => {
  const trimmed = text.trim()
  const match = amountPattern.exec(trimmed)
  if (match === null) {
    return Effect.fail(
      badArgument(
        name,
        /^\d+\.\d{3,}$/.test(trimmed)
          ? `"${text}" has more than 2 decimals (amounts are dollars and cents)`
          : `"${text}" is not an amount in dollars and cents, such as 12.34`
      )
    )
  }
  const cents = Number(match[1]) * 100 + Number((match[2] ?? "").padEnd(2, "0"))
  if (!Number.isSafeInteger(cents)) return Effect.fail(badArgument(name, `"${text}" is too large`))
  if (cents === 0 && options.allowZero !== true)
    return Effect.fail(badArgument(name, "the amount must be more than 0.00"))
  return Effect.succeed(cents)
}

/** `1234` -> `$12.34`, with thousands separators. */
export const formatCents = (cents: number): string => {
  const sign = cents < 0 ? "-" : ""
  const absolute = Math.abs(cents)
  const dollars = Math.floor(absolute / 100).toLocaleString("en-US")
  return `${sign}$${dollars}.${String(absolute % 100).padStart(2, "0")}`
}
