/**
 * Who to pay, from a CSV file of `recipient,amount[,description]` lines (the command line's `--csv` and the web
 * console's upload read the same format): a header line, blank lines and `#` comments are skipped; fields may be
 * quoted (RFC 4180).
 */
import { parseCents } from "./Money.ts"

/** One payee: a member's user nanoid, cents, and the invoice description. */
export interface CsvPayee {
  readonly to: string
  readonly amount_cents: number
  readonly invoice_description: string
}

/** What reading a CSV gave: its payees, or the first line that is wrong and why (no line: the file names no payee). */
export type ParsedPayees =
  | { readonly _tag: "Payees"; readonly payees: ReadonlyArray<CsvPayee> }
  | { readonly _tag: "BadLine"; readonly line: number | undefined; readonly reason: string }

const recipientPattern = /^us-.{12}$/

/** Why `to` is not a member's user nanoid, or undefined when it is one. */
export const recipientProblem = (to: string): string | undefined =>
  recipientPattern.test(to) ? undefined : `"${to}" is not a user nanoid (us- and 12 characters)`

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

/**
 * The payees of a CSV file's text; a payee without a description of its own gets `description`.
 *
 * @example
 * parsePayeesCsv("recipient,amount\nus-aaaaaaaaaaaa,12.34\n", "March") // { _tag: "Payees", payees: [...] }
 */
export const parsePayeesCsv = (text: string, description: string): ParsedPayees => {
  const payees: Array<CsvPayee> = []
  for (const [index, raw] of text.split(/\r?\n/).entries()) {
    const line = raw.trim()
    if (line === "" || line.startsWith("#")) continue
    const [to = "", amount = "", own] = csvFields(line)
    // A header: the first line whose first field is no user id.
    if (payees.length === 0 && !to.startsWith("us-") && /recipient|user|to|nanoid/i.test(to)) continue
    const recipient = recipientProblem(to)
    if (recipient !== undefined) return { _tag: "BadLine", line: index + 1, reason: recipient }
    const cents = parseCents(amount)
    if (cents._tag === "NotAnAmount") return { _tag: "BadLine", line: index + 1, reason: cents.reason }
    payees.push({
      to,
      amount_cents: cents.cents,
      invoice_description: own === undefined || own === "" ? description : own
    })
  }
  if (payees.length === 0) return { _tag: "BadLine", line: undefined, reason: "names no payee" }
  return { _tag: "Payees", payees }
}
