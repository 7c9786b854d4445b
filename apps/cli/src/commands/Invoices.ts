/**
 * `svc invoices ...`: bill a team (flat, or time entries at an hourly rate), list, show, cancel, reject, and save the
 * PDF. All on the typed client (InvoicesApi); paying invoices is `svc pay --invoice`.
 */
import { writeFileSync } from "node:fs"
import type { InvoiceView } from "@svc/domain/invoice"
import { maxPaymentsPage } from "@svc/domain/payment"
import { Console, Effect, Option } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import { answer } from "../Api.ts"
import { badArgument, CliFailure } from "../Failure.ts"
import { formatCents, parseCents } from "../Money.ts"
import { fields, localDate, show, table } from "../Output.ts"
import type { Payee } from "../Payees.ts"
import { svc } from "../Root.ts"
import { authenticated } from "../Session.ts"
import { invoiceId, teamId } from "./Ids.ts"

const teamFlag = Flag.String("team").pipe(Flag.withDescription("The team's nanoid (te-...)"))
const invoiceArgument = Argument.String("invoice").pipe(Argument.withDescription("The invoice's nanoid (iv-...)"))

const entryPattern = /^(\d{4}-\d{2}-\d{2})\s+(\d{1,2})(?::(\d{2}))?(?:\s+(.*))?$/su

/** A time entry as typed: `2026-01-05 7:30 What was done` (minutes and notes optional). */
export const parseEntry = (text: string) => {
  const match = entryPattern.exec(text.trim())
  if (match === null) {
    return Effect.fail(badArgument("--entry", `"${text}" is not DATE H[:MM] [NOTES], such as "2026-01-05 7:30 Review"`))
  }
  return Effect.succeed({
    date: match[1] ?? "",
    hours: Number(match[2]),
    minutes: Number(match[3] ?? 0),
    notes: (match[4] ?? "").trim()
  })
}

/**
 * The payees of `svc pay --invoice`: each invoice read from the API (so the summary shows what will be paid before
 * anything is signed), its author paid what is left of it. One that cannot be paid is refused here, naming it.
 */
export const invoicePayees = (
  url: string,
  client: Effect.Success<ReturnType<typeof authenticated>>["client"],
  ids: ReadonlyArray<string>
) =>
  Effect.forEach(ids, (text) =>
    Effect.gen(function* () {
      const id = yield* invoiceId("--invoice", text)
      const { value } = yield* answer(
        url,
        client.invoices.get({ params: { invoice_nanoid: id }, responseMode: "decoded-and-response" })
      )
      const invoice = value.data
      if (invoice.invoice_status !== "submitted" && invoice.invoice_status !== "partially_paid") {
        return yield* badArgument("--invoice", `${id} is ${invoice.invoice_status}: there is nothing to pay`)
      }
      if (invoice.held_by !== null) {
        const by = invoice.held_by.kind === "pay_schedule" ? "pay schedule" : "payment"
        return yield* badArgument("--invoice", `${id} is being paid by ${by} ${invoice.held_by.nanoid}`)
      }
      return {
        to: invoice.recipient_nanoid,
        amount_cents: invoice.amount_cents - invoice.paid_cents,
        invoice_description: `Invoice ${invoice.invoice_number}`,
        invoice: id
      } satisfies Payee
    })
  )

/** An invoice, field by field. */
export const invoiceFields = (invoice: InvoiceView) =>
  [
    fields([
      ["Invoice", invoice.nanoid],
      ["Number", invoice.invoice_number],
      ["Status", invoice.invoice_status],
      ["Team", invoice.team_nanoid],
      ["From", invoice.recipient_nanoid],
      ["Amount", `${formatCents(invoice.amount_cents)} ${invoice.currency}`],
      ["Paid", formatCents(invoice.paid_cents)],
      ...(invoice.held_by === null
        ? []
        : [["Being paid by", `${invoice.held_by.kind.replace("_", " ")} ${invoice.held_by.nanoid}`] as const]),
      ["Description", invoice.invoice_description],
      ["Due", invoice.due_date ?? "-"],
      ...(invoice.reason === null ? [] : [["Reason", invoice.reason] as const]),
      ["Created", localDate(invoice.created_at)]
    ]),
    ...(invoice.time_entries.length === 0
      ? []
      : [
          table(invoice.time_entries, [
            { header: "DATE", cell: (e) => e.date },
            { header: "TIME", cell: (e) => `${e.hours}:${String(e.minutes).padStart(2, "0")}` },
            { header: "NOTES", cell: (e) => e.notes }
          ])
        ]),
    ...(invoice.payments.length === 0
      ? []
      : [
          table(invoice.payments, [
            { header: "PAYMENT", cell: (p) => p.payment_nanoid },
            { header: "AMOUNT", cell: (p) => formatCents(p.amount_cents), right: true },
            { header: "TRANSACTION", cell: (p) => p.transaction },
            { header: "BLOCK", cell: (p) => String(p.block_number ?? "-") }
          ])
        ])
  ].join("\n\n")

const create = Command.make(
  "create",
  {
    team: teamFlag,
    number: Flag.String("number").pipe(Flag.withDescription("Your own invoice number, once per team")),
    amount: Flag.String("amount").pipe(Flag.withDescription("A flat invoice's amount, such as 1200.00"), Flag.optional),
    rate: Flag.String("rate").pipe(
      Flag.withDescription("The hourly rate of time entries, such as 80.00"),
      Flag.optional
    ),
    entry: Flag.String("entry").pipe(
      Flag.withDescription('A time entry, "DATE H[:MM] [NOTES]" (repeat); the amount is computed from them'),
      Flag.between(0, 500)
    ),
    description: Flag.String("description").pipe(Flag.withDescription("What the invoice is for"), Flag.optional),
    role: Flag.String("role-description").pipe(Flag.withDescription("Your role"), Flag.optional),
    kind: Flag.Literals("flat-type", ["service", "product"]).pipe(Flag.withDefault("service")),
    due: Flag.String("due").pipe(Flag.withDescription("Due date, YYYY-MM-DD"), Flag.optional)
  },
  Effect.fn("svc.invoices.create")(function* (input) {
    const flags = yield* svc
    const team = yield* teamId("--team", input.team)
    const timed = input.entry.length > 0
    if (timed === Option.isNone(input.rate) || timed === Option.isSome(input.amount)) {
      return yield* badArgument("flags", "give --amount for a flat invoice, or --rate and --entry for time entries")
    }
    const entries = yield* Effect.forEach(input.entry, parseEntry)
    const money = timed
      ? {
          hourly_rate_usd_cents: yield* parseCents(
            "--rate",
            Option.getOrElse(input.rate, () => "")
          )
        }
      : {
          amount_cents: yield* parseCents(
            "--amount",
            Option.getOrElse(input.amount, () => "")
          )
        }
    const { client } = yield* authenticated(flags)
    const result = yield* answer(
      flags.url,
      client.invoices.create({
        payload: {
          team_nanoid: team,
          invoice_number: input.number,
          type: timed ? "time_entry" : "flat",
          flat_type: input.kind,
          currency: "USD",
          ...money,
          ...(timed ? { time_entries: entries } : {}),
          invoice_description: Option.getOrElse(input.description, () => ""),
          role_description: Option.getOrElse(input.role, () => ""),
          ...(Option.isSome(input.due) ? { due_date: input.due.value } : {})
        },
        responseMode: "decoded-and-response"
      })
    )
    yield* show(flags.json, result, ({ data }) => invoiceFields(data))
  })
).pipe(Command.withDescription("Bill a team you are an employee or contractor of"))

const list = Command.make(
  "list",
  {
    team: teamFlag,
    status: Flag.Literals("status", ["submitted", "partially_paid", "paid", "canceled", "rejected"]).pipe(Flag.optional)
  },
  Effect.fn("svc.invoices.list")(function* (input) {
    const flags = yield* svc
    const team = yield* teamId("--team", input.team)
    const { client } = yield* authenticated(flags)
    const items: Array<InvoiceView> = []
    let cursor: string | undefined
    do {
      const page = yield* answer(
        flags.url,
        client.invoices.list({
          query: {
            team_nanoid: team,
            limit: maxPaymentsPage,
            ...(Option.isSome(input.status) ? { status: input.status.value } : {}),
            ...(cursor === undefined ? {} : { cursor })
          },
          responseMode: "decoded-and-response"
        })
      )
      items.push(...page.value.data.items)
      cursor = page.value.data.next_cursor ?? undefined
    } while (cursor !== undefined)
    const text = JSON.stringify({ success: true, data: { items, next_cursor: null } })
    yield* show(flags.json, { value: items, text }, (rows) =>
      table(
        rows,
        [
          { header: "INVOICE", cell: (i) => i.nanoid },
          { header: "NUMBER", cell: (i) => i.invoice_number },
          { header: "FROM", cell: (i) => i.recipient_nanoid },
          { header: "AMOUNT", cell: (i) => formatCents(i.amount_cents), right: true },
          { header: "PAID", cell: (i) => formatCents(i.paid_cents), right: true },
          { header: "STATUS", cell: (i) => i.invoice_status },
          { header: "DUE", cell: (i) => i.due_date ?? "-" },
          { header: "CREATED", cell: (i) => localDate(i.created_at) }
        ],
        "No invoices."
      )
    )
  })
).pipe(Command.withDescription("List a team's invoices (yours, unless you manage the team), newest first"))

const get = Command.make(
  "get",
  { invoice: invoiceArgument },
  Effect.fn("svc.invoices.get")(function* (input) {
    const flags = yield* svc
    const id = yield* invoiceId("invoice", input.invoice)
    const { client } = yield* authenticated(flags)
    const result = yield* answer(
      flags.url,
      client.invoices.get({ params: { invoice_nanoid: id }, responseMode: "decoded-and-response" })
    )
    yield* show(flags.json, result, ({ data }) => invoiceFields(data))
  })
).pipe(Command.withDescription("Show an invoice"))

const cancel = Command.make(
  "cancel",
  { invoice: invoiceArgument },
  Effect.fn("svc.invoices.cancel")(function* (input) {
    const flags = yield* svc
    const id = yield* invoiceId("invoice", input.invoice)
    const { client } = yield* authenticated(flags)
    const result = yield* answer(
      flags.url,
      client.invoices.cancel({ params: { invoice_nanoid: id }, responseMode: "decoded-and-response" })
    )
    yield* show(flags.json, result, ({ data }) => invoiceFields(data))
  })
).pipe(Command.withDescription("Cancel your own invoice while nothing of it is paid"))

const reject = Command.make(
  "reject",
  {
    invoice: invoiceArgument,
    reason: Flag.String("reason").pipe(Flag.withDescription("Why, for the member to read"))
  },
  Effect.fn("svc.invoices.reject")(function* (input) {
    const flags = yield* svc
    const id = yield* invoiceId("invoice", input.invoice)
    const { client } = yield* authenticated(flags)
    const result = yield* answer(
      flags.url,
      client.invoices.reject({
        params: { invoice_nanoid: id },
        payload: { reason: input.reason },
        responseMode: "decoded-and-response"
      })
    )
    yield* show(flags.json, result, ({ data }) => invoiceFields(data))
  })
).pipe(Command.withDescription("Reject an unpaid invoice of a team you administer, saying why"))

const pdf = Command.make(
  "pdf",
  {
    invoice: invoiceArgument,
    out: Flag.String("out").pipe(Flag.withDescription("Where to write it (default: <invoice>.pdf)"), Flag.optional)
  },
  Effect.fn("svc.invoices.pdf")(function* (input) {
    const flags = yield* svc
    const id = yield* invoiceId("invoice", input.invoice)
    const { client } = yield* authenticated(flags)
    const bytes = yield* answer(
      flags.url,
      client.invoices.pdf({ params: { invoice_nanoid: id }, responseMode: "decoded-and-response" })
    )
    const file = Option.getOrElse(input.out, () => `${id}.pdf`)
    yield* Effect.try({
      try: () => writeFileSync(file, bytes.value),
      catch: (error) => new CliFailure({ message: `cannot write ${file}: ${String(error)}` })
    })
    yield* Console.log(
      flags.json ? JSON.stringify({ file, bytes: bytes.value.length }) : `Wrote ${file} (${bytes.value.length} bytes)`
    )
  })
).pipe(Command.withDescription("Save an invoice as a PDF"))

/** `svc invoices`. */
export const invoices = Command.make("invoices").pipe(
  Command.withDescription("Bill your team, and see, cancel, reject or print invoices"),
  Command.withSubcommands([create, list, get, cancel, reject, pdf])
)
