/**
 * Who to pay, as the command line takes it: `--to us-...=12.34` entries, or a CSV file of `recipient,amount[,
 * description]` lines for hundreds of payees (a header line, blank lines and `#` comments are skipped; fields may be
 * quoted).
 */
import { Effect } from "effect"
import { badArgument, type CliFailure } from "./Failure.ts"
import { parseCents } from "./Money.ts"

/** One payee: a member's user nanoid, cents, and the invoice description; or the member's invoice it pays. */
export interface Payee {
  readonly to: string
  readonly amount_cents: number
  readonly invoice_description: string
  /** The invoice (iv-...) the payee billed: paid by its id, what is left of it. */
  readonly invoice?: string
}

const recipientPattern = /^us-.{12}$/

const checkRecipient = (name: string, to: string): Effect.Effect<string, CliFailure> =>
  recipientPattern.test(to)
    ? Effect.succeed(to)
    : Effect.fail(badArgument(name, `"${to}" is not a user nanoid (us- and 12 characters)`))

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

/** The fields of one CSV line (RFC 4180 quoting: `"a, b"`, `""` for a quote). */
export const csvFields = (line: string): Array<string> => {
  const result: Array<string> = []
  let field = ""
  let quoted = false
  for (let index = 0; index < line.length; index++) {
    const char = line[index]
    if (quoted) {
      if (char === '"' && line[index + 1] === '"') {
        field += '"'
        index++
      } else if (char === '"') quoted = false
      else field += char
    } else if (char === '"') quoted = true
    else if (char === ",") {
      result.push(field.trim())
      field = ""
    } else field += char
  }
  result.push(field.trim())
  return result
}

/** The payees of a CSV file's text; `file` names it in errors, with the line number. */
export const parseCsv = (file: string, text: string, description: string): Effect.Effect<Array<Payee>, CliFailure> =>
  Effect.gen(function* () {
    const payees: Array<Payee> = []
    const lines = text.split(/\r?\n/)
    for (const [index, raw] of lines.entries()) {
      const line = raw.trim()
      if (line === "" || line.startsWith("#")) continue
      const [to = "", amount = "", own] = csvFields(line)
      // A header: the first line whose first field is no user id.
      if (payees.length === 0 && !to.startsWith("us-") && /recipient|user|to|nanoid/i.test(to)) continue
      const where = `${file} line ${index + 1}`
      const recipient = yield* checkRecipient(where, to)
      const amount_cents = yield* parseCents(where, amount)
      payees.push({
        to: recipient,
        amount_cents,
        invoice_description: own === undefined || own === "" ? description : own
      })
    }
    if (payees.length === 0) return yield* badArgument("--csv", `${file} names no payee`)
    return payees
  })

/** `items` in batches of at most `size`. */
export const batchesOf = <A>(items: ReadonlyArray<A>, size: number): Array<Array<A>> => {
  const batches: Array<Array<A>> = []
  for (let start = 0; start < items.length; start += size) batches.push(items.slice(start, start + size))
  return batches
}
