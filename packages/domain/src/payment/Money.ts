/**
 * Money as people read and type it: dollars and cents (`$1,234.56`, `12.34`). The API counts integer cents (DESIGN §5);
 * the command line and the web console show and read amounts with these same two functions.
 */

const amountPattern = /^(\d+)(?:\.(\d{1,2}))?$/

/** `1234` -> `$12.34`, with thousands separators. */
export const formatCents = (cents: number): string => {
  const sign = cents < 0 ? "-" : ""
  const absolute = Math.abs(cents)
  const dollars = Math.floor(absolute / 100).toLocaleString("en-US")
  return `${sign}$${dollars}.${String(absolute % 100).padStart(2, "0")}`
}

/** What reading an amount gave: its cents, or why it is not one. */
export type ParsedCents =
  | { readonly _tag: "Cents"; readonly cents: number }
  | { readonly _tag: "NotAnAmount"; readonly reason: string }

/**
 * Cents of a dollar amount such as `12.34`, `12.3` or `12`; refuses more than two decimals, signs, other text, and
 * zero unless `allowZero` (a rate may be 0; a payment may not).
 *
 * @example
 * parseCents("1,200.5".replace(",", "")) // { _tag: "Cents", cents: 120050 }
 */
export const parseCents = (text: string, options: { readonly allowZero?: boolean } = {}): ParsedCents => {
  const trimmed = text.trim()
  const match = amountPattern.exec(trimmed)
  const notAnAmount = (reason: string): ParsedCents => ({ _tag: "NotAnAmount", reason })
  if (match === null) {
    return notAnAmount(
      /^\d+\.\d{3,}$/.test(trimmed)
        ? `"${text}" has more than 2 decimals (amounts are dollars and cents)`
        : `"${text}" is not an amount in dollars and cents, such as 12.34`
    )
  }
  const cents = Number(match[1]) * 100 + Number((match[2] ?? "").padEnd(2, "0"))
  if (!Number.isSafeInteger(cents)) return notAnAmount(`"${text}" is too large`)
  if (cents === 0 && options.allowZero !== true) return notAnAmount("the amount must be more than 0.00")
  return { _tag: "Cents", cents }
}
