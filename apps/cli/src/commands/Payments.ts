import type { CompanyId, TeamId, UserId } from "@svc/domain/Ids"
import { maxPaymentsPage } from "@svc/domain/payment"
import { Effect, Option } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import { allPages, answer } from "../Api.ts"
import { badArgument } from "../Failure.ts"
import { formatCents } from "../Money.ts"
import { fields, localDate, show, table } from "../Output.ts"
import { svc } from "../Root.ts"
import { authenticated } from "../Session.ts"
import { teamId, userId } from "./Ids.ts"
import { pay, payInstant, teamFlag } from "./Pay.ts"

const datePattern = /^\d{4}-\d{2}-\d{2}$/

const list = Command.make(
  "list",
  {
    team: teamFlag,
    state: Flag.Literals("state", ["all", "intent", "scheduled", "complete"]).pipe(
      Flag.withDescription("Which payments"),
      Flag.withDefault("all")
    ),
    direction: Flag.Literals("direction", ["payable", "receivable"]).pipe(
      Flag.withDescription("Paid by the team (payable) or to it (receivable)"),
      Flag.withDefault("payable")
    ),
    recipient: Flag.String("recipient").pipe(
      Flag.withDescription("Only payments to this user (us-...)"),
      Flag.optional
    ),
    since: Flag.String("from").pipe(Flag.withDescription("From this day, YYYY-MM-DD (UTC, inclusive)"), Flag.optional),
    until: Flag.String("until").pipe(Flag.withDescription("Until this day, YYYY-MM-DD (UTC, inclusive)"), Flag.optional)
  },
  Effect.fn("svc.payments.list")(function* (input) {
    const flags = yield* svc
    const team = yield* teamId("--team", input.team)
    const recipient = Option.isSome(input.recipient) ? yield* userId("--recipient", input.recipient.value) : undefined
    for (const [name, value] of [
      ["--from", input.since],
      ["--until", input.until]
    ] as const) {
      if (Option.isSome(value) && !datePattern.test(value.value)) {
        return yield* badArgument(name, `"${value.value}" is not a day YYYY-MM-DD`)
      }
    }
    const { client } = yield* authenticated(flags)
    const query = {
      team_nanoid: team,
      state: input.state,
      query_type: input.direction,
      ...(recipient === undefined ? {} : { recipient }),
      ...(Option.isSome(input.since) ? { start_date: input.since.value } : {}),
      ...(Option.isSome(input.until) ? { end_date: input.until.value } : {})
    }
    // Every payment, a page at a time: an unpaged query answers only the newest 1000 (docs/decisions/0039).
    const result = yield* allPages((cursor) =>
      answer(
        flags.url,
        client.payments.query({
          query: { ...query, limit: maxPaymentsPage, ...(cursor === undefined ? {} : { cursor }) },
          responseMode: "decoded-and-response"
        })
      )
    )
    yield* show(flags.json, result, ({ data }) =>
      table(
        data.items,
        [
          { header: "PAYMENT", cell: (i) => i.payment.nanoid },
          { header: "DATE", cell: (i) => localDate(i.payment.created_at) },
          {
            header: "RECIPIENT",
            cell: (i) =>
              `${[i.recipient.first_name, i.recipient.last_name].filter((n) => n !== "").join(" ") || i.recipient.email} (${i.recipient.nanoid})`
          },
          { header: "AMOUNT", cell: (i) => formatCents(i.payment.amount_cents), right: true },
          { header: "STATE", cell: (i) => i.payment.state ?? "-" },
          { header: "DESCRIPTION", cell: (i) => i.invoice.invoice_description ?? "" }
        ],
        "No payments."
      )
    )
  })
).pipe(
  Command.withDescription("List a team's payments, newest first, with state, direction, recipient and date filters")
)

/** `svc payments`. */
export const payments = Command.make("payments").pipe(
  Command.withDescription("Payments of a team"),
  Command.withSubcommands([list])
)

const balance = Command.make(
  "balance",
  {
    nanoid: Argument.String("nanoid").pipe(Argument.withDescription("A team (te-), company (co-) or user (us-) nanoid"))
  },
  Effect.fn("svc.balance")(function* (input) {
    const flags = yield* svc
    if (!/^(te|co|us)-/.test(input.nanoid)) {
      return yield* badArgument("nanoid", `"${input.nanoid}" is not a team, company or user nanoid`)
    }
    const { client } = yield* authenticated(flags)
    const result = yield* answer(
      flags.url,
      client.balance.get({
        query: { nanoid: input.nanoid as TeamId | CompanyId | UserId },
        responseMode: "decoded-and-response"
      })
    )
    yield* show(flags.json, result, ({ data }) =>
      [
        fields([["Account", data.svc_account_address]]),
        table(
          data.balances,
          [
            { header: "CURRENCY", cell: (b) => b.currency },
            { header: "BALANCE", cell: (b) => formatCents(b.balance_cents), right: true }
          ],
          "No balances."
        )
      ].join("\n")
    )
  })
).pipe(Command.withDescription("Show the balance of a team, company or user account"))

/** The payment commands at the top level. */
export const paymentCommands = [payments, pay, payInstant, balance] as const
