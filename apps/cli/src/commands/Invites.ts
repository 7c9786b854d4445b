/**
 * `svc invites ...`: list, invite employees or contractors, invite managers (typed data signed here), accept, revoke.
 * All on the typed client (InvitesApi).
 */

import type { Email } from "@svc/domain/Email"
import { type Signature, type WalletAddress, walletAddressOf } from "@svc/domain/Evm"
import { signTypedDataBundle } from "@svc/domain/eip712"
import type { InviteId } from "@svc/domain/Ids"
import type { InviteStateResponse } from "@svc/domain/invite"
import { Effect, Option, Redacted } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import { privateKeyToAccount } from "viem/accounts"
import { answer } from "../Api.ts"
import { badArgument, CliFailure } from "../Failure.ts"
import { requireKey } from "../Keys.ts"
import { fields, localDate, show, table } from "../Output.ts"
import { svc } from "../Root.ts"
import { authenticated, authenticatedAs } from "../Session.ts"
import { inviteId, teamId, walletAddress } from "./Ids.ts"

const teamFlag = Flag.String("team").pipe(Flag.withDescription("The team's nanoid (te-...)"))
const emailPattern = /^[^\s@]+@[^\s@]+\.[^\s@]+$/
const managerRoles = ["team_admin", "team_finance_admin", "team_viewer"] as const

const checkEmail = (name: string, email: string) =>
  emailPattern.test(email)
    ? Effect.succeed(email as Email)
    : Effect.fail(badArgument(name, `"${email}" is not an e-mail address`))

/** An invite's state after accept, reject, revoke or resend. */
const inviteFields = (data: InviteStateResponse["data"]) =>
  fields([
    ["Invite", data.invite_nanoid],
    ["Team", data.team_nanoid],
    ["State", data.state],
    ["Role", data.role],
    ["Expires", localDate(data.expires_at)]
  ])

const list = Command.make(
  "list",
  { team: teamFlag },
  Effect.fn("svc.invites.list")(function* (input) {
    const flags = yield* svc
    const team = yield* teamId("--team", input.team)
    const { client } = yield* authenticated(flags)
    const result = yield* answer(
      flags.url,
      client.invites.list({ query: { nanoid: team }, responseMode: "decoded-and-response" })
    )
    yield* show(flags.json, result, ({ data }) =>
      table(
        data,
        [
          { header: "INVITE", cell: (i) => i.nanoid },
          { header: "EMAIL", cell: (i) => i.email },
          { header: "NAME", cell: (i) => i.invitee_name },
          { header: "INVITED BY", cell: (i) => i.inviter_email || i.inviter_name },
          { header: "TEAM", cell: (i) => i.team.name }
        ],
        "No invites."
      )
    )
  })
).pipe(Command.withDescription("List a team's pending invites"))

const create = Command.make(
  "create",
  {
    team: teamFlag,
    email: Flag.String("email").pipe(Flag.withDescription("Who to invite (repeat, up to 100)"), Flag.atLeast(1)),
    role: Flag.Literals("role", ["team_employee", "team_contractor"]).pipe(
      Flag.withDescription("The role the invitees get"),
      Flag.withDefault("team_employee")
    ),
    anonymous: Flag.Boolean("anonymous").pipe(
      Flag.withDescription("Do not show the inviter's name in the e-mail"),
      Flag.withDefault(false)
    )
  },
  Effect.fn("svc.invites.create")(function* (input) {
    const flags = yield* svc
    const team = yield* teamId("--team", input.team)
    const emails: Array<Email> = []
    for (const email of input.email) emails.push(yield* checkEmail("--email", email))
    const { client } = yield* authenticated(flags)
    const result = yield* answer(
      flags.url,
      client.invites.create({
        payload: {
          nanoid: team,
          invites: emails.map((email) => ({ email })),
          role: input.role,
          anonymous: input.anonymous
        },
        responseMode: "decoded-and-response"
      })
    )
    yield* show(flags.json, result, ({ data }) => `Invited ${emails.length}: ${data.nanoids.join(", ")}`)
  })
).pipe(Command.withDescription("Invite employees or contractors by e-mail; each gets a single-use link"))

const manager = Command.make(
  "manager",
  {
    team: teamFlag,
    invite: Flag.String("invite").pipe(
      Flag.withDescription(
        `A manager to invite, EMAIL:ROLE:WALLET with ROLE one of ${managerRoles.join(", ")} (repeat)`
      ),
      Flag.atLeast(1)
    )
  },
  Effect.fn("svc.invites.manager")(function* (input) {
    const flags = yield* svc
    const team = yield* teamId("--team", input.team)
    const invites: Array<{ email: Email; role: (typeof managerRoles)[number]; wallet: WalletAddress }> = []
    for (const entry of input.invite) {
      const [email = "", role = "", wallet = ""] = entry.split(":")
      if (!(managerRoles as ReadonlyArray<string>).includes(role)) {
        return yield* badArgument("--invite", `"${role}" in "${entry}" is not one of ${managerRoles.join(", ")}`)
      }
      invites.push({
        email: yield* checkEmail("--invite", email),
        role: role as (typeof managerRoles)[number],
        wallet: yield* walletAddress("--invite", wallet)
      })
    }
    const key = yield* requireKey(flags.keyFile)
    const signer = privateKeyToAccount(Redacted.value(key.privateKey)).address
    const { client } = yield* authenticatedAs(flags, key)
    const issued = yield* answer(
      flags.url,
      client.invites.createManager({ payload: { nanoid: team, invites }, responseMode: "decoded-and-response" })
    )
    const { invites: ids, ...bundle } = issued.value.data
    const grants = bundle.typed_data.data
    if (
      grants.length !== invites.length ||
      grants.some((grant, index) => grant.account.toLowerCase() !== invites[index]?.wallet.toLowerCase())
    ) {
      return yield* new CliFailure({
        message: "the typed data the API issued does not grant what was asked: nothing was signed"
      })
    }
    const signature = yield* signTypedDataBundle(bundle, Redacted.value(key.privateKey))
    const executed = yield* answer(
      flags.url,
      client.invites.executeManager({
        payload: {
          invites: ids,
          signer: walletAddressOf(signer),
          typed_data: bundle.typed_data,
          signature: signature as Signature
        },
        responseMode: "decoded-and-response"
      })
    )
    yield* show(flags.json, executed, ({ data }) =>
      fields([
        ["Invites", data.invites.join(", ")],
        ["Transaction", data.transaction]
      ])
    )
  })
).pipe(Command.withDescription("Invite managers: the role grants are signed here (EIP-712) and executed on chain"))

const accept = Command.make(
  "accept",
  {
    invite: Flag.String("invite").pipe(Flag.withDescription("The invite's nanoid (in-...) from the e-mail's link")),
    token: Flag.String("token").pipe(
      Flag.withDescription("The token from the e-mail's link (none for a new team's admin invite)"),
      Flag.optional
    )
  },
  Effect.fn("svc.invites.accept")(function* (input) {
    const flags = yield* svc
    const invite = yield* inviteId("--invite", input.invite)
    const { client } = yield* authenticated(flags)
    const result = yield* answer(
      flags.url,
      client.invites.accept({
        payload: {
          invite_nanoid: invite,
          ...(Option.isSome(input.token) ? { token: input.token.value } : {})
        },
        responseMode: "decoded-and-response"
      })
    )
    yield* show(flags.json, result, ({ data }) => inviteFields(data))
  })
).pipe(Command.withDescription("Accept an invite as the signed-in user (with the e-mail link's invite and token)"))

const revoke = Command.make(
  "revoke",
  { invite: Argument.String("invite").pipe(Argument.withDescription("The invite's nanoid (in-...)")) },
  Effect.fn("svc.invites.revoke")(function* (input) {
    const flags = yield* svc
    const invite: InviteId = yield* inviteId("invite", input.invite)
    const { client } = yield* authenticated(flags)
    const result = yield* answer(
      flags.url,
      client.invites.revoke({ params: { invite_nanoid: invite }, responseMode: "decoded-and-response" })
    )
    yield* show(flags.json, result, () => `Revoked ${invite}`)
  })
).pipe(Command.withDescription("Revoke a pending invite"))

const reject = Command.make(
  "reject",
  {
    invite: Flag.String("invite").pipe(Flag.withDescription("The invite's nanoid (in-...) from the e-mail's link")),
    token: Flag.String("token").pipe(Flag.withDescription("The token from the e-mail's link"))
  },
  Effect.fn("svc.invites.reject")(function* (input) {
    const flags = yield* svc
    const invite = yield* inviteId("--invite", input.invite)
    const { client } = yield* authenticated(flags)
    const result = yield* answer(
      flags.url,
      client.invites.reject({
        payload: { invite_nanoid: invite, token: input.token },
        responseMode: "decoded-and-response"
      })
    )
    yield* show(flags.json, result, ({ data }) => inviteFields(data))
  })
).pipe(Command.withDescription("Decline an invite as the signed-in user (with the e-mail link's invite and token)"))

const resend = Command.make(
  "resend",
  { invite: Argument.String("invite").pipe(Argument.withDescription("The invite's nanoid (in-...)")) },
  Effect.fn("svc.invites.resend")(function* (input) {
    const flags = yield* svc
    const invite = yield* inviteId("invite", input.invite)
    const { client } = yield* authenticated(flags)
    const result = yield* answer(
      flags.url,
      client.invites.resend({ params: { invite_nanoid: invite }, responseMode: "decoded-and-response" })
    )
    yield* show(flags.json, result, ({ data }) => inviteFields(data))
  })
).pipe(Command.withDescription("Send a pending invite again, with a new link and lifetime"))

/** `svc invites`. */
export const invites = Command.make("invites").pipe(
  Command.withDescription("Invites: list, create, manager, accept, reject, revoke, resend"),
  Command.withSubcommands([list, create, manager, accept, reject, revoke, resend])
)
