/**
 * `svc users list` (a team's users, by e-mail, with paging) and `svc members ...` (one member, `--team` and `--user`:
 * summary, removal, block and unblock, settings).
 */
import { Effect, Option } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import { answer } from "../Api.ts"
import { badArgument } from "../Failure.ts"
import { formatCents, parseCents } from "../Money.ts"
import { fields, localDate, show, table } from "../Output.ts"
import { svc } from "../Root.ts"
import { authenticated } from "../Session.ts"
import { teamId, userId } from "./Ids.ts"

const teamFlag = Flag.String("team").pipe(Flag.withDescription("The team's nanoid (te-...)"))

/**
 * One member, as every command names a team: `--team te-... --user us-...`. The older positional form
 * (`<team> <user>`) still works; a flag and an argument for one thing must agree.
 */
const member = {
  team: Flag.String("team").pipe(Flag.withDescription("The team's nanoid (te-...)"), Flag.optional),
  user: Flag.String("user").pipe(Flag.withDescription("The member's user nanoid (us-...)"), Flag.optional),
  teamArgument: Argument.String("team").pipe(Argument.withDescription("Older form of --team"), Argument.optional),
  userArgument: Argument.String("user").pipe(Argument.withDescription("Older form of --user"), Argument.optional)
}

/** The value of `name`: its flag, or its older positional argument. */
const either = (name: string, flag: Option.Option<string>, argument: Option.Option<string>) => {
  if (Option.isSome(flag) && Option.isSome(argument) && flag.value !== argument.value) {
    return Effect.fail(badArgument(name, "given as a flag and as an argument, with different values"))
  }
  return Option.match(
    Option.orElse(flag, () => argument),
    {
      onNone: () => Effect.fail(badArgument(name, "missing: name the member with --team te-... --user us-...")),
      onSome: Effect.succeed
    }
  )
}

/** The team and user `member`'s inputs name. */
const memberOf = Effect.fn("svc.members.memberOf")(function* (input: {
  readonly team: Option.Option<string>
  readonly user: Option.Option<string>
  readonly teamArgument: Option.Option<string>
  readonly userArgument: Option.Option<string>
}) {
  const team = yield* teamId("--team", yield* either("--team", input.team, input.teamArgument))
  const user = yield* userId("--user", yield* either("--user", input.user, input.userArgument))
  return { team, user }
})

const usersList = Command.make(
  "list",
  {
    team: teamFlag,
    email: Flag.String("email").pipe(
      Flag.withDescription("Only users with this e-mail (repeat, or a comma-separated list; up to 100)"),
      Flag.atLeast(0)
    ),
    page: Flag.Int("page").pipe(Flag.withDescription("Page number, from 1"), Flag.optional),
    offset: Flag.Int("offset").pipe(Flag.withDescription("Row offset, instead of --page"), Flag.optional),
    count: Flag.Int("count").pipe(Flag.withDescription("Page size, 1 to 500 (default 100)"), Flag.optional)
  },
  Effect.fn("svc.users.list")(function* (input) {
    const flags = yield* svc
    const id = yield* teamId("--team", input.team)
    const { client } = yield* authenticated(flags)
    const result = yield* answer(
      flags.url,
      client.teams.users({
        params: { team_nanoid: id },
        query: {
          emails: input.email.length === 0 ? undefined : input.email,
          page: Option.getOrUndefined(input.page),
          offset: Option.getOrUndefined(input.offset),
          count: Option.getOrUndefined(input.count)
        },
        responseMode: "decoded-and-response"
      })
    )
    yield* show(flags.json, result, ({ data }) => {
      const rows = table(
        data.users,
        [
          { header: "USER", cell: (u) => u.nanoid },
          { header: "NAME", cell: (u) => [u.first_name, u.last_name].filter((n) => n !== "").join(" ") },
          { header: "EMAIL", cell: (u) => u.email },
          { header: "ROLE", cell: (u) => u.role },
          { header: "PAYABLE", cell: (u) => (u.payable ? "yes" : "no") },
          { header: "BLOCKED", cell: (u) => (u.blocked ? `since ${localDate(u.blocked_since ?? "")}` : "-") },
          { header: "PAID AT", cell: (u) => u.payout_address ?? (u.svc_account || "-") },
          { header: "DUPLICATE OF", cell: (u) => u.duplicate_of.join(", ") || "-" }
        ],
        "No users."
      )
      const { pagination } = data
      return pagination.has_more
        ? `${rows}\n(more: --page ${pagination.next_page} or --offset ${pagination.next_offset})`
        : rows
    })
  })
).pipe(Command.withDescription("List a team's users: names, e-mails, roles, whether they can be paid"))

/** `svc users`. */
export const users = Command.make("users").pipe(
  Command.withDescription("Users of a team"),
  Command.withSubcommands([usersList])
)

const summary = Command.make(
  "summary",
  member,
  Effect.fn("svc.members.summary")(function* (input) {
    const flags = yield* svc
    const { team, user } = yield* memberOf(input)
    const { client } = yield* authenticated(flags)
    const result = yield* answer(
      flags.url,
      client.teams.memberSummary({
        params: { team_nanoid: team, user_nanoid: user },
        responseMode: "decoded-and-response"
      })
    )
    yield* show(flags.json, result, ({ data }) =>
      fields([
        ["User", data.user.nanoid],
        ["Name", [data.user.first_name, data.user.last_name].filter((n) => n !== "").join(" ") || "-"],
        ["Email", data.user.email || "-"],
        ["Wallet", data.user.blockchain_address || "-"],
        ["Relationship", data.relationship_type],
        ["Blocked", data.blocked ? `since ${localDate(data.blocked_since ?? "")}` : "no"],
        ["Company", `${data.company.name} (${data.company.nanoid})`],
        ["Onboarding", `${data.user.onboarding.step}${data.user.onboarding.onboarded ? " (onboarded)" : ""}`]
      ])
    )
  })
).pipe(Command.withDescription("Show one member of a team"))

const remove = Command.make(
  "remove",
  member,
  Effect.fn("svc.members.remove")(function* (input) {
    const flags = yield* svc
    const { team, user } = yield* memberOf(input)
    const { client } = yield* authenticated(flags)
    const result = yield* answer(
      flags.url,
      client.teams.removeMember({
        params: { team_nanoid: team, user_nanoid: user },
        responseMode: "decoded-and-response"
      })
    )
    yield* show(flags.json, result, ({ data }) => `Removed ${data.user_nanoid} from ${data.team_nanoid}`)
  })
).pipe(Command.withDescription("Remove a member from a team"))

/** `svc members block` and `unblock`: one route, `blocked` true or false. */
const blockCommand = (blocked: boolean) =>
  Command.make(
    blocked ? "block" : "unblock",
    {
      ...member,
      reason: Flag.String("reason").pipe(Flag.withDescription("Why (up to 500 characters)"), Flag.optional)
    },
    Effect.fn(`svc.members.${blocked ? "block" : "unblock"}`)(function* (input) {
      const flags = yield* svc
      const { team, user } = yield* memberOf(input)
      const { client } = yield* authenticated(flags)
      const result = yield* answer(
        flags.url,
        client.teams.blockMember({
          params: { team_nanoid: team, user_nanoid: user },
          payload: { blocked, ...(Option.isSome(input.reason) ? { reason: input.reason.value } : {}) },
          responseMode: "decoded-and-response"
        })
      )
      yield* show(flags.json, result, ({ data }) =>
        data.blocked
          ? `Blocked ${data.user_nanoid} in ${data.team_nanoid} since ${localDate(data.blocked_since ?? "")}`
          : `Unblocked ${data.user_nanoid} in ${data.team_nanoid}`
      )
    })
  ).pipe(
    Command.withDescription(
      blocked
        ? "Block a member: still listed, but not paid and not acting for the team; their roles on chain are revoked"
        : "Unblock a member: they may be paid again (roles come back only by a manager invite)"
    )
  )

const settingsView = (data: {
  readonly hourly_rate_usd_cents: number
  readonly payment_notifications: boolean
  readonly default_invoice_description: string
}) =>
  fields([
    ["Hourly rate", formatCents(data.hourly_rate_usd_cents)],
    ["Payment notifications", String(data.payment_notifications)],
    ["Default invoice description", data.default_invoice_description || "-"]
  ])

const settingsGet = Command.make(
  "get",
  member,
  Effect.fn("svc.members.settings.get")(function* (input) {
    const flags = yield* svc
    const { team, user } = yield* memberOf(input)
    const { client } = yield* authenticated(flags)
    const result = yield* answer(
      flags.url,
      client.teams.getMemberSettings({
        params: { team_nanoid: team, user_nanoid: user },
        responseMode: "decoded-and-response"
      })
    )
    yield* show(flags.json, result, ({ data }) => settingsView(data))
  })
).pipe(Command.withDescription("Show a member's settings in a team"))

const settingsSet = Command.make(
  "set",
  {
    ...member,
    hourlyRate: Flag.String("hourly-rate").pipe(
      Flag.withDescription("Default hourly rate in dollars and cents, e.g. 85.50"),
      Flag.optional
    ),
    notifications: Flag.Literals("notifications", ["true", "false"]).pipe(
      Flag.withDescription("Whether the member gets e-mails about payments"),
      Flag.optional
    ),
    description: Flag.String("default-description").pipe(
      Flag.withDescription("Default invoice description for payments to this member"),
      Flag.optional
    )
  },
  Effect.fn("svc.members.settings.set")(function* (input) {
    const flags = yield* svc
    const { team, user } = yield* memberOf(input)
    const payload = {
      ...(Option.isSome(input.hourlyRate)
        ? { hourly_rate_usd_cents: yield* parseCents("--hourly-rate", input.hourlyRate.value, { allowZero: true }) }
        : {}),
      ...(Option.isSome(input.notifications) ? { payment_notifications: input.notifications.value === "true" } : {}),
      ...(Option.isSome(input.description) ? { default_invoice_description: input.description.value } : {})
    }
    if (Object.keys(payload).length === 0) {
      return yield* badArgument(
        "flags",
        "nothing to change: give --hourly-rate, --notifications or --default-description"
      )
    }
    const { client } = yield* authenticated(flags)
    const result = yield* answer(
      flags.url,
      client.teams.updateMemberSettings({
        params: { team_nanoid: team, user_nanoid: user },
        payload,
        responseMode: "decoded-and-response"
      })
    )
    yield* show(flags.json, result, ({ data }) => settingsView(data))
  })
).pipe(Command.withDescription("Change a member's settings in a team"))

/** `svc members`. */
export const members = Command.make("members").pipe(
  Command.withDescription("One member of a team: summary, remove, block, unblock, settings"),
  Command.withSubcommands([
    summary,
    remove,
    blockCommand(true),
    blockCommand(false),
    Command.make("settings").pipe(
      Command.withDescription("A member's settings in a team"),
      Command.withSubcommands([settingsGet, settingsSet])
    )
  ])
)
