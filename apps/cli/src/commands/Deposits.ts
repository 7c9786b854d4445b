/**
 * `svc deposits list`: the USDC that reached a team's account, newest first (decision 0064), every page; `--json`
 * prints the API's `data` whole (`allPages`).
 */
import { maxPaymentsPage } from "@svc/domain/payment"
import { Effect } from "effect"
import { Command, Flag } from "effect/cli"
import { allPages, answer } from "../Api.ts"
import { formatCents } from "../Money.ts"
import { localDate, show, table } from "../Output.ts"
import { svc } from "../Root.ts"
import { authenticated } from "../Session.ts"
import { teamId } from "./Ids.ts"

const list = Command.make(
  "list",
  { team: Flag.String("team").pipe(Flag.withDescription("The team's nanoid (te-...)")) },
  Effect.fn("svc.deposits.list")(function* (input) {
    const flags = yield* svc
    const team = yield* teamId("--team", input.team)
    const { client } = yield* authenticated(flags)
    const result = yield* allPages((cursor) =>
      answer(
        flags.url,
        client.deposits.list({
          query: { team_nanoid: team, limit: maxPaymentsPage, ...(cursor === undefined ? {} : { cursor }) },
          responseMode: "decoded-and-response"
        })
      )
    )
    yield* show(flags.json, result, ({ data }) =>
      table(
        data.items,
        [
          { header: "DEPOSIT", cell: (d) => d.deposit_nanoid },
          { header: "DATE", cell: (d) => localDate(d.created_at) },
          { header: "FROM", cell: (d) => d.from },
          { header: "AMOUNT", cell: (d) => formatCents(d.amount_cents), right: true },
          { header: "STATE", cell: (d) => (d.state === "pending" ? `pending (${d.confirmations})` : d.state) },
          { header: "TRANSACTION", cell: (d) => d.transaction }
        ],
        "No deposits."
      )
    )
  })
).pipe(Command.withDescription("List the USDC that reached a team's account, newest first"))

/** `svc deposits`. */
export const deposits = Command.make("deposits").pipe(
  Command.withDescription("Money arriving at a team's account"),
  Command.withSubcommands([list])
)
