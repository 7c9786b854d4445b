/**
 * `svc schedules create|list|get|cancel` and `svc cash-requirements` (issue 37, docs/payroll.md): a pay schedule signed
 * here once for every instalment, after checking that the typed data the API issued schedules what was asked. A
 * schedule may pay members' invoices in instalments (`--invoice`, issue 38): each is read first, as `svc pay --invoice`
 * reads it, so that the summary shows it and the check knows what each instalment of it must pay.
 */
import { readFileSync } from "node:fs"
import type { Signature } from "@svc/domain/Evm"
import { signTypedDataBundle } from "@svc/domain/eip712"
import type { PayScheduleId } from "@svc/domain/Ids"
import { tokenAmountOf } from "@svc/domain/payment"
import type { PayScheduleItem } from "@svc/domain/schedule"
import { Console, Effect, Option, Redacted } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import { answer } from "../Api.ts"
import { badArgument, CliFailure } from "../Failure.ts"
import { formatCents } from "../Money.ts"
import { fields, localDate, show, table } from "../Output.ts"
import { type Payee, parseCsv, parseToEntry } from "../Payees.ts"
import { svc } from "../Root.ts"
import { authenticated, authenticatedAs } from "../Session.ts"
import { teamId } from "./Ids.ts"
import { confirm, payeesTable, signer, teamFlag, yesFlag } from "./Pay.ts"
import { entriesOf, parseInvoiceEntry, scheduledInvoices } from "./ScheduleInvoices.ts"

const scheduleArgument = Argument.String("schedule").pipe(
  Argument.withDescription("The pay schedule's nanoid (ps-...)")
)

/** A `ps-` nanoid, or the argument named as wrong. */
const scheduleId = (value: string) =>
  /^ps-[0-9A-Za-z_-]{1,61}$/.test(value)
    ? Effect.succeed(value as PayScheduleId)
    : Effect.fail(badArgument("schedule", `"${value}" is not a pay schedule nanoid (ps-...)`))

/** A schedule, as a table of its fields and its payees. */
const scheduleView = (s: PayScheduleItem) =>
  [
    fields([
      ["Schedule", s.nanoid],
      ["State", s.state],
      ["Interval", s.interval],
      ["First pay", localDate(s.first_pay_at)],
      ["Next pay", s.next_pay_at === null ? "-" : localDate(s.next_pay_at)],
      ["Paid", `${s.paid_count} of ${s.count}${s.missed_count > 0 ? ` (${s.missed_count} missed)` : ""}`],
      ["Each instalment", formatCents(s.amount_cents)],
      ["Signer", s.signer.wallet]
    ]),
    "",
    table(s.recipients, [
      { header: "PAYEE", cell: (p) => p.user_nanoid },
      { header: "AMOUNT", cell: (p) => formatCents(p.amount_cents), right: true },
      { header: "INVOICE", cell: (p) => p.invoice_nanoid ?? "-" },
      { header: "DESCRIPTION", cell: (p) => p.invoice_description }
    ])
  ].join("\n")

const create = Command.make(
  "create",
  {
    team: teamFlag,
    to: Flag.String("to").pipe(
      Flag.withDescription(
        "A payee and amount each instalment, RECIPIENT=AMOUNT such as us-xxxxxxxxxxxx=2500 (repeat)"
      ),
      Flag.atLeast(0)
    ),
    invoice: Flag.String("invoice").pipe(
      Flag.withDescription(
        "A member's invoice paid in instalments, INVOICE[=AMOUNT] such as iv-xxxxxxxxxxxx=250 (dollars each " +
          "instalment; by default what is left of it over --count); shown before anything is signed (repeat)"
      ),
      Flag.atLeast(0)
    ),
    csv: Flag.String("csv").pipe(
      Flag.withDescription("A CSV file of recipient,amount[,description] lines, as `svc pay` reads it"),
      Flag.optional
    ),
    description: Flag.String("description").pipe(
      Flag.withDescription("Invoice description for payees without their own"),
      Flag.withDefault("Salary")
    ),
    interval: Flag.Literals("interval", ["weekly", "biweekly", "monthly"]).pipe(
      Flag.withDescription("How often it pays; monthly keeps the day of the month, clamped to the month's last day")
    ),
    firstPayAt: Flag.String("first-pay-at").pipe(
      Flag.withDescription(
        "When the first instalment is due, now or later (an ISO date-time such as 2027-01-31T09:00:00Z)"
      )
    ),
    count: Flag.Int("count").pipe(Flag.withDescription("How many instalments, 1 to 120")),
    yes: yesFlag
  },
  Effect.fn("svc.schedules.create")(function* (input) {
    const flags = yield* svc
    const team = yield* teamId("--team", input.team)
    const payees: Array<Payee> = []
    for (const entry of input.to) payees.push(yield* parseToEntry(entry, input.description))
    if (Option.isSome(input.csv)) {
      const path = input.csv.value
      const text = yield* Effect.try({
        try: () => readFileSync(path, "utf8"),
        catch: () => badArgument("--csv", `cannot read ${path}`)
      })
      payees.push(...(yield* parseCsv(path, text, input.description)))
    }
    const invoices = yield* Effect.forEach(input.invoice, parseInvoiceEntry)
    if (payees.length === 0 && invoices.length === 0) {
      return yield* badArgument("payees", "give --to RECIPIENT=AMOUNT entries, --invoice iv-... or --csv FILE")
    }
    const millis = Date.parse(input.firstPayAt)
    if (Number.isNaN(millis)) return yield* badArgument("--first-pay-at", `"${input.firstPayAt}" is not a date-time`)
    if (input.count < 1 || input.count > 120) return yield* badArgument("--count", "expected 1 to 120")
    // Invoices are read first, as the wallet that signs: the summary shows what each instalment pays of them.
    const early = invoices.length === 0 ? undefined : yield* signer(flags)
    if (early !== undefined) {
      const { client } = yield* authenticatedAs(flags, early.walletKey)
      payees.push(...(yield* scheduledInvoices(flags.url, client, invoices, input.count)))
    }
    const each = payees.reduce((sum, payee) => sum + payee.amount_cents, 0)
    const summary = [
      payeesTable(payees),
      "",
      fields([
        ["Team", team],
        ["Payees", String(payees.length)],
        ["Each instalment", formatCents(each)],
        ["Interval", input.interval],
        ["First pay", localDate(millis / 1000)],
        ["Instalments", String(input.count)],
        ["Total", formatCents(each * input.count)]
      ])
    ].join("\n")
    yield* flags.json ? Effect.sync(() => process.stderr.write(`${summary}\n`)) : Console.log(summary)
    const wallet = early ?? (yield* signer(flags))
    yield* confirm(input.yes, `Sign a schedule of ${input.count} instalments of ${formatCents(each)}?`)
    const { client } = yield* authenticatedAs(flags, wallet.walletKey)
    const issued = yield* answer(
      flags.url,
      client.paySchedules.create({
        payload: {
          team_nanoid: team,
          to: entriesOf(payees, invoices),
          interval: input.interval,
          first_pay_at: new Date(millis).toISOString(),
          count: input.count
        },
        responseMode: "decoded-and-response"
      })
    )
    const { pay_schedule_nanoid, ...bundle } = issued.value.data
    const data = bundle.typed_data.data
    const asked =
      data.interval === input.interval &&
      data.count === String(input.count) &&
      data.payees.length === payees.length &&
      data.payees.every((p, i) => BigInt(p.amount) === BigInt(tokenAmountOf(payees[i]?.amount_cents ?? 0)))
    if (!asked) {
      return yield* new CliFailure({
        message: "the typed data the API issued does not schedule what was asked: nothing was signed"
      })
    }
    const signature = yield* signTypedDataBundle(bundle, Redacted.value(wallet.key))
    const executed = yield* answer(
      flags.url,
      client.paySchedules.execute({
        payload: {
          team_nanoid: team,
          signer: wallet.address,
          typed_data: bundle.typed_data,
          signature: signature as Signature
        },
        responseMode: "decoded-and-response"
      })
    )
    yield* show(
      flags.json,
      executed,
      ({ data }) => `Registered pay schedule ${pay_schedule_nanoid}, transaction ${data.transaction}`
    )
  })
).pipe(
  Command.withDescription(
    "Create a pay schedule: shows it, asks, signs it here once for every instalment and registers it on chain"
  ),
  Command.withExamples([
    {
      command:
        "svc schedules create --team te-xxxxxxxxxxxx --to us-aaaaaaaaaaaa=2500 --interval monthly --first-pay-at 2027-01-31T09:00:00Z --count 12",
      description: "A year of monthly salary to one member"
    },
    {
      command:
        "svc schedules create --team te-xxxxxxxxxxxx --invoice iv-aaaaaaaaaaaa --interval monthly --first-pay-at 2027-01-31T09:00:00Z --count 3",
      description: "A member's invoice in three equal monthly instalments of what is left of it"
    },
    {
      command:
        "svc schedules create --team te-xxxxxxxxxxxx --to us-aaaaaaaaaaaa=2500 --invoice iv-bbbbbbbbbbbb=400 --interval weekly --first-pay-at 2027-01-04T09:00:00Z --count 4",
      description: "A salary and 400.00 a week of another member's invoice"
    }
  ])
)

const list = Command.make(
  "list",
  { team: teamFlag },
  Effect.fn("svc.schedules.list")(function* (input) {
    const flags = yield* svc
    const team = yield* teamId("--team", input.team)
    const { client } = yield* authenticated(flags)
    const result = yield* answer(
      flags.url,
      client.paySchedules.list({ query: { team_nanoid: team }, responseMode: "decoded-and-response" })
    )
    yield* show(flags.json, result, ({ data }) =>
      table(
        data.items,
        [
          { header: "SCHEDULE", cell: (s) => s.nanoid },
          { header: "STATE", cell: (s) => s.state },
          { header: "INTERVAL", cell: (s) => s.interval },
          { header: "EACH", cell: (s) => formatCents(s.amount_cents), right: true },
          { header: "PAID", cell: (s) => `${s.paid_count}/${s.count}`, right: true },
          { header: "NEXT PAY", cell: (s) => (s.next_pay_at === null ? "-" : localDate(s.next_pay_at)) }
        ],
        "No pay schedules."
      )
    )
  })
).pipe(Command.withDescription("List a team's pay schedules, newest first"))

const get = Command.make(
  "get",
  { schedule: scheduleArgument },
  Effect.fn("svc.schedules.get")(function* (input) {
    const flags = yield* svc
    const id = yield* scheduleId(input.schedule)
    const { client } = yield* authenticated(flags)
    const result = yield* answer(
      flags.url,
      client.paySchedules.get({ params: { pay_schedule_nanoid: id }, responseMode: "decoded-and-response" })
    )
    yield* show(flags.json, result, ({ data }) => scheduleView(data))
  })
).pipe(Command.withDescription("Show a pay schedule and its payees"))

const cancel = Command.make(
  "cancel",
  { schedule: scheduleArgument },
  Effect.fn("svc.schedules.cancel")(function* (input) {
    const flags = yield* svc
    const id = yield* scheduleId(input.schedule)
    const { client } = yield* authenticated(flags)
    const result = yield* answer(
      flags.url,
      client.paySchedules.cancel({ params: { pay_schedule_nanoid: id }, responseMode: "decoded-and-response" })
    )
    yield* show(flags.json, result, ({ data }) => `Canceled pay schedule ${data.nanoid}, on chain too`)
  })
).pipe(Command.withDescription("Cancel a pay schedule for good (on chain first)"))

/** `svc schedules`. */
export const schedules = Command.make("schedules").pipe(
  Command.withDescription("Pay schedules: payroll signed once and paid every period on chain"),
  Command.withSubcommands([create, list, get, cancel])
)

/** `svc cash-requirements --team`. */
export const cashRequirements = Command.make(
  "cash-requirements",
  { team: teamFlag },
  Effect.fn("svc.cash-requirements")(function* (input) {
    const flags = yield* svc
    const team = yield* teamId("--team", input.team)
    const { client } = yield* authenticated(flags)
    const result = yield* answer(
      flags.url,
      client.paySchedules.cashRequirement({ query: { team_nanoid: team }, responseMode: "decoded-and-response" })
    )
    yield* show(flags.json, result, ({ data }) =>
      [
        fields([
          ["Balance", formatCents(data.balance_cents)],
          [`Due within ${data.horizon_days} days`, formatCents(data.obligations_cents)],
          ["Short", data.shortfall_cents === 0 ? "nothing" : formatCents(data.shortfall_cents)],
          ["First unmet", data.first_unmet_at === null ? "-" : localDate(data.first_unmet_at)]
        ]),
        "",
        table(
          data.obligations,
          [
            { header: "DUE", cell: (o) => localDate(o.due_at) },
            { header: "KIND", cell: (o) => (o.instalment === null ? o.kind : `${o.kind} ${o.instalment}`) },
            { header: "OF", cell: (o) => o.nanoid },
            { header: "AMOUNT", cell: (o) => formatCents(o.amount_cents), right: true }
          ],
          "Nothing due."
        )
      ].join("\n")
    )
  })
).pipe(Command.withDescription("What a team owes within its horizon (intents, instalments) against its balance"))
