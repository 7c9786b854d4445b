/**
 * Money on the command line is dollars and cents (`12.34`); the API counts integer cents (DESIGN §5). The reading and
 * the printing are the domain's (`payment/Money.ts`), shared with the web console.
 */
import { parseCents as parseDollars } from "@svc/domain/payment"
import { Effect } from "effect"
import { badArgument, type CliFailure } from "./Failure.ts"

export { formatCents } from "@svc/domain/payment"

/**
 * Cents of a dollar amount such as `12.34`, `12.3` or `12`; refuses more than two decimals, signs, other text, and
 * zero unless `allowZero` (a rate may be 0; a payment may not), naming the argument `name`.
 */
export const parseCents = (
  name: string,
  text: string,
  options: { readonly allowZero?: boolean } = {}
): Effect.Effect<number, CliFailure> => {
  const parsed = parseDollars(text, options)
  return parsed._tag === "Cents" ? Effect.succeed(parsed.cents) : Effect.fail(badArgument(name, parsed.reason))
}
