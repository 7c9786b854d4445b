/**
 * `svc teams ...`: the caller's teams, one team, creating, changing and deleting teams, and team settings.
 */
import type { WalletAddress } from "@svc/domain/Evm"
import type { CompanyId } from "@svc/domain/Ids"
import { Effect, Option } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import { answer } from "../Api.ts"
import { badArgument } from "../Failure.ts"
import { formatCents } from "../Money.ts"
import { fields, show, table } from "../Output.ts"
import { svc } from "../Root.ts"
import { authenticated } from "../Session.ts"
import { teamId, walletAddress } from "./Ids.ts"

const teamArgument = Argument.String("team").pipe(Argument.withDescription("The team's nanoid (te-...)"))

const list = Command.make(
  "list",
  {},
  Effect.fn("svc.teams.list")(function* () {
    const flags = yield* svc
    const { client } = yield* authenticated(flags)
    const result = yield* answer(flags.url, client.teams.listMine({ responseMode: "decoded-and-response" }))
    yield* show(flags.json, result, ({ data }) =>
      table(
        data.teams,
        [
          { header: "TEAM", cell: (t) => t.nanoid },
          { header: "NAME", cell: (t) => t.name },
          { header: "ROLE", cell: (t) => t.role },
          { header: "MEMBERS", cell: (t) => String(t.member_count), right: true },
          { header: "STATUS", cell: (t) => t.status }
        ],
        "No teams."
      )
    )
  })
).pipe(Command.withDescription("List the teams you are a member of, with your role"))

const teamView = (data: {
  readonly nanoid: string
  readonly name: string
  readonly balance?: string | undefined
  readonly administrators: ReadonlyArray<{
    readonly user_nanoid: string
    readonly email: string
    readonly type: string
  }>
}) =>
  fields([
    ["Team", data.nanoid],
    ["Name", data.name],
    // Shown to the roles that may read it only (`balance.read`).
    ...(data.balance === undefined ? [] : ([["Balance", formatCents(Number(data.balance))]] as const)),
    ["Administrators", data.administrators.map((a) => `${a.email || a.user_nanoid} (${a.type})`).join(", ") || "-"]
  ])

const get = Command.make(
  "get",
  { team: teamArgument },
  Effect.fn("svc.teams.get")(function* ({ team }) {
    const flags = yield* svc
    const id = yield* teamId("team", team)
    const { client } = yield* authenticated(flags)
    const result = yield* answer(
      flags.url,
      client.teams.get({ params: { team_nanoid: id }, responseMode: "decoded-and-response" })
    )
    yield* show(flags.json, result, ({ data }) => teamView(data))
  })
).pipe(Command.withDescription("Show a team: name, balance, administrators"))

const create = Command.make(
  "create",
  {
    name: Flag.String("name").pipe(Flag.withDescription("The team's name (2 to 50 characters)")),
    company: Flag.String("company").pipe(Flag.withDescription("The company (co-...) the team belongs to")),
    admin: Flag.String("admin").pipe(
      Flag.withDescription("Wallet of the team's admin (0x...): yours, or another that is invited and must accept")
    ),
    description: Flag.String("description").pipe(Flag.withDescription("What the team is for"), Flag.optional)
  },
  Effect.fn("svc.teams.create")(function* (input) {
    const flags = yield* svc
    if (!input.company.startsWith("co-")) return yield* badArgument("--company", "expected a company nanoid (co-...)")
    const admin = yield* walletAddress("--admin", input.admin)
    const { client } = yield* authenticated(flags)
    const result = yield* answer(
      flags.url,
      client.teams.create({
        payload: {
          name: input.name,
          entity_nanoid: input.company as CompanyId,
          admin_wallet: admin as WalletAddress,
          ...(Option.isSome(input.description) ? { description: input.description.value } : {})
        },
        responseMode: "decoded-and-response"
      })
    )
    yield* show(flags.json, result, ({ data }) =>
      fields([
        ["Created team", data.team_nanoid],
        ["Name", data.name],
        ["Company", data.entity_nanoid],
        ["Admin", data.admin_wallet],
        ...(data.admin_invite_nanoid === undefined
          ? []
          : [["Admin invite", `${data.admin_invite_nanoid} (pending: ${admin} accepts it signed in)`] as const])
      ])
    )
  })
).pipe(Command.withDescription("Create a team in a company you administer"))

const update = Command.make(
  "update",
  {
    team: teamArgument,
    name: Flag.String("name").pipe(Flag.withDescription("New name"), Flag.optional),
    description: Flag.String("description").pipe(Flag.withDescription("New description"), Flag.optional),
    avatar: Flag.String("avatar").pipe(Flag.withDescription("New avatar URL"), Flag.optional)
  },
  Effect.fn("svc.teams.update")(function* (input) {
    const flags = yield* svc
    const id = yield* teamId("team", input.team)
    const payload = {
      ...(Option.isSome(input.name) ? { name: input.name.value } : {}),
      ...(Option.isSome(input.description) ? { description: input.description.value } : {}),
      ...(Option.isSome(input.avatar) ? { avatar: input.avatar.value } : {})
    }
    if (Object.keys(payload).length === 0) {
      return yield* badArgument("flags", "nothing to change: give --name, --description or --avatar")
    }
    const { client } = yield* authenticated(flags)
    const result = yield* answer(
      flags.url,
      client.teams.update({ params: { team_nanoid: id }, payload, responseMode: "decoded-and-response" })
    )
    yield* show(flags.json, result, ({ data }) => teamView(data))
  })
).pipe(Command.withDescription("Change a team's name, description or avatar"))

const remove = Command.make(
  "delete",
  { team: teamArgument },
  Effect.fn("svc.teams.delete")(function* ({ team }) {
    const flags = yield* svc
    const id = yield* teamId("team", team)
    const { client } = yield* authenticated(flags)
    const result = yield* answer(
      flags.url,
      client.teams.delete({ params: { team_nanoid: id }, responseMode: "decoded-and-response" })
    )
    yield* show(flags.json, result, ({ data }) => `Deleted team ${data.team_nanoid}`)
  })
).pipe(Command.withDescription("Delete a team"))

const settingsView = (data: {
  readonly default_pay_now: boolean
  readonly invoice_prefix: string
  readonly payment_reminder_days: number
}) =>
  fields([
    ["Default pay now", String(data.default_pay_now)],
    ["Invoice prefix", data.invoice_prefix || "-"],
    ["Payment reminder days", String(data.payment_reminder_days)]
  ])

const settingsGet = Command.make(
  "get",
  { team: teamArgument },
  Effect.fn("svc.teams.settings.get")(function* ({ team }) {
    const flags = yield* svc
    const id = yield* teamId("team", team)
    const { client } = yield* authenticated(flags)
    const result = yield* answer(
      flags.url,
      client.teams.getSettings({ params: { team_nanoid: id }, responseMode: "decoded-and-response" })
    )
    yield* show(flags.json, result, ({ data }) => settingsView(data))
  })
).pipe(Command.withDescription("Show a team's settings"))

const settingsSet = Command.make(
  "set",
  {
    team: teamArgument,
    defaultPayNow: Flag.Literals("default-pay-now", ["true", "false"]).pipe(
      Flag.withDescription("Whether payments pay now when the request does not say"),
      Flag.optional
    ),
    invoicePrefix: Flag.String("invoice-prefix").pipe(
      Flag.withDescription("Prefix of invoice numbers (up to 16 characters)"),
      Flag.optional
    ),
    reminderDays: Flag.Int("reminder-days").pipe(
      Flag.withDescription("Days before a scheduled payment that payees are reminded (0 to 90)"),
      Flag.optional
    )
  },
  Effect.fn("svc.teams.settings.set")(function* (input) {
    const flags = yield* svc
    const id = yield* teamId("team", input.team)
    const payload = {
      ...(Option.isSome(input.defaultPayNow) ? { default_pay_now: input.defaultPayNow.value === "true" } : {}),
      ...(Option.isSome(input.invoicePrefix) ? { invoice_prefix: input.invoicePrefix.value } : {}),
      ...(Option.isSome(input.reminderDays) ? { payment_reminder_days: input.reminderDays.value } : {})
    }
    if (Object.keys(payload).length === 0) {
      return yield* badArgument(
        "flags",
        "nothing to change: give --default-pay-now, --invoice-prefix or --reminder-days"
      )
    }
    const { client } = yield* authenticated(flags)
    const result = yield* answer(
      flags.url,
      client.teams.updateSettings({ params: { team_nanoid: id }, payload, responseMode: "decoded-and-response" })
    )
    yield* show(flags.json, result, ({ data }) => settingsView(data))
  })
).pipe(Command.withDescription("Change a team's settings"))

const settings = Command.make("settings").pipe(
  Command.withDescription("A team's settings"),
  Command.withSubcommands([settingsGet, settingsSet])
)

/** `svc teams`. */
export const teams = Command.make("teams").pipe(
  Command.withDescription("Teams: list, get, create, update, delete, settings"),
  Command.withSubcommands([list, get, create, update, remove, settings])
)
