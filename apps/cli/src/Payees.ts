/**
 * Who to pay, as the command line takes it: `--to us-...=12.34` entries, or a CSV file of `recipient,amount[,
 * description]` lines for hundreds of payees, read by the domain's `payment/PayeesCsv.ts` (the web console reads the
 * same format).
 */
import { type CsvPayee, parsePayeesCsv, recipientProblem } from "@svc/domain/payment"
import { Effect } from "effect"
import { badArgument, type CliFailure } from "./Failure.ts"
import { parseCents } from "./Money.ts"

export { csvFields } from "@svc/domain/payment"

/** One payee: a member's user nanoid, cents, and the invoice description; or the member's invoice it pays. */
export type Payee = CsvPayee & {
  /** The invoice (iv-...) the payee billed: paid by its id, what is left of it. */
  readonly invoice?: string
}

const checkRecipient = (name: string, to: string): Effect.Effect<string, CliFailure> => {
  const problem = recipientProblem(to)
  return problem === undefined ? Effect.succeed(to) : Effect.fail(badArgument(name, problem))
}

/** A `--to us-...=12.34` entry. */
export const parseToEntry = (entry: string, description: string): Effect.Effect<Payee, CliFailure> =>
  Effect.gen(function* () {
    const separator = entry.lastIndexOf("=")
    if (separator < 0)
      return yield* badArgument("--to", `"${entry}" is not RECIPIENT=AMOUNT, such as us-xxxxxxxxxxxx=12.34`)
    const to = yield* checkRecipient("--to", entry.slice(0, separator).trim())
    const amount_cents = yield* parseCents("--to", entry.slice(separator + 1))
    return { to, amount_cents, invoice_description: description }
  })

/** The payees of a CSV file's text; `file` names it in errors, with the line number. */
export const parseCsv = (
  file: string,
  text: string,
  description: string
): Effect.Effect<ReadonlyArray<Payee>, CliFailure> => {
  const parsed = parsePayeesCsv(text, description)
  if (parsed._tag === "Payees") return Effect.succeed(parsed.payees)
  return Effect.fail(
    parsed.line === undefined
      ? badArgument("--csv", `${file} ${parsed.reason}`)
      : badArgument(`${file} line ${parsed.line}`, parsed.reason)
  )
}

/** `items` in batches of at most `size`. */
export const batchesOf = <A>(items: ReadonlyArray<A>, size: number): Array<Array<A>> => {
  const batches: Array<Array<A>> = []
  for (let start = 0; start < items.length; start += size) batches.push(items.slice(start, start + size))
  return batches
}
