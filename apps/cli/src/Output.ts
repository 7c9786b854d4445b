/**
 * What the commands print: the API's JSON exactly with `--json`, aligned tables otherwise (money in dollars and cents,
 * dates in local time), colour only on a terminal without NO_COLOR.
 */
import { Console, type Effect } from "effect"
import type { Answer } from "./Api.ts"

/** Whether stdout gets colour: a terminal, and NO_COLOR unset or empty (https://no-color.org). */
export const colour = (): boolean => process.stdout.isTTY === true && (process.env.NO_COLOR ?? "") === ""

const bold = (text: string) => (colour() ? `\u001b[1m${text}\u001b[22m` : text)
const dim = (text: string) => (colour() ? `\u001b[2m${text}\u001b[22m` : text)

/** A column of a table: its header and how a row shows in it. */
export interface Column<A> {
  readonly header: string
  readonly cell: (row: A) => string
  /** Right-aligned (amounts). */
  readonly right?: boolean
}

/** The rows as an aligned table with a header line; a short note when there are none. */
export const table = <A>(rows: ReadonlyArray<A>, columns: ReadonlyArray<Column<A>>, empty = "(none)"): string => {
  if (rows.length === 0) return dim(empty)
  const cells = rows.map((row) => columns.map((column) => column.cell(row).replaceAll("\n", " ")))
  const widths = columns.map((column, index) =>
    Math.max(column.header.length, ...cells.map((line) => (line[index] ?? "").length))
  )
  const line = (values: ReadonlyArray<string>) =>
    values
      .map((value, index) => {
        const width = widths[index] ?? 0
        return columns[index]?.right === true ? value.padStart(width) : value.padEnd(width)
      })
      .join("  ")
      .trimEnd()
  return [bold(line(columns.map((column) => column.header))), ...cells.map(line)].join("\n")
}

/** `label: value` lines, aligned. */
export const fields = (pairs: ReadonlyArray<readonly [string, string]>): string => {
  const width = Math.max(0, ...pairs.map(([label]) => label.length))
  return pairs.map(([label, value]) => `${bold(`${label}:`.padEnd(width + 1))} ${value}`).join("\n")
}

/** An ISO date (or unix seconds) in the local time zone; the input as it is when it is not a date. */
export const localDate = (value: string | number | undefined): string => {
  if (value === undefined || value === "" || value === 0) return "-"
  const date = typeof value === "number" ? new Date(value * 1000) : new Date(value)
  if (Number.isNaN(date.getTime())) return String(value)
  return date.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" })
}

/** Prints the API's body exactly with `--json`, else what `human` makes of the decoded value. */
export const show = <A>(json: boolean, answer: Answer<A>, human: (value: A) => string): Effect.Effect<void> =>
  Console.log(json ? answer.text : human(answer.value))

// C0 and C1 controls, DEL, line and paragraph separators, and bidirectional overrides and isolates.
const unsafe = /[\p{Cc}\u2028\u2029\u202a-\u202e\u2066-\u2069]/gu
const escapes: Readonly<Record<string, string>> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" }

/**
 * Text from elsewhere (a receiver's answer) on one line of a table: every character a terminal could act on shown
 * escaped (`\n`, `\u001b`), never passed to it; at most `max` characters, ending in `…` when cut here or before.
 */
export const excerpt = (text: string, options: { readonly max: number; readonly cut?: boolean }): string => {
  const shown = text.replace(unsafe, (c) => escapes[c] ?? `\\u${(c.codePointAt(0) ?? 0).toString(16).padStart(4, "0")}`)
  const chars = Array.from(shown)
  return chars.length > options.max
    ? `${chars.slice(0, options.max - 1).join("")}…`
    : options.cut === true
      ? `${shown}…`
      : shown
}
