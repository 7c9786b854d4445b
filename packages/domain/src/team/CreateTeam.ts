/**
 * Creating a team (SPEC §4.2, decision 0041): in a company the caller administers (a `team_admin` of one of its
 * teams). The caller becomes its `team_admin` and, with a chain, the owner of its account, created first; another
 * `admin_wallet` gets a pending admin invite.
 */
import { DateTime, Effect, Option } from "effect"
import { ChainUnreachable } from "../chain/ChainError.ts"
import { ChainGateway } from "../chain/ChainGateway.ts"
import { svcAccountSaltOf } from "../chain/SvcAccountSalt.ts"
import type { WalletAddress } from "../Evm.ts"
import { makeUuid } from "../event/EventEnvelope.ts"
import { IdGenerator, type TeamId } from "../Ids.ts"
import { adminInviteMailOf, adminInviteOf } from "../invite/AdminInvite.ts"
import { InviteRepository } from "../invite/InviteRepository.ts"
import { InviteSettings } from "../invite/InviteSettings.ts"
import { makeInviteToken } from "../invite/InviteToken.ts"
import { MailOutbox } from "../mail/MailOutbox.ts"
import { memberEventOf } from "../membership/MemberEvents.ts"
import { InsufficientPermissions } from "../membership/MembershipErrors.ts"
import { MembershipRepository } from "../membership/MembershipRepository.ts"
import { withEvents } from "../UnitOfWork.ts"
import type { Caller } from "../user/Caller.ts"
import type { User } from "../user/User.ts"
import { UserRepository } from "../user/UserRepository.ts"
import type { CreatedTeam, CreateTeamBody, Team } from "./Team.ts"
import { TeamRepository } from "./TeamRepository.ts"

/**
 * How long creating a team waits for its account on chain before answering `SERVICE_UNAVAILABLE` (decision 0041):
 * a few blocks on Arbitrum, far more than anvil needs.
 */
export const accountCreationWait = "30 seconds"

/** Whether the caller is a `team_admin` of an active team of `company`; an unknown company answers as someone else's. */
const administersCompany = Effect.fn("Teams.administersCompany")(function* (
  caller: Caller,
  company: Team["company_nanoid"]
) {
  const companyTeams = new Set(
    (yield* TeamRepository.use((t) => t.listByCompany(company)))
      .filter((t) => t.status === "active")
      .map((t) => t.nanoid)
  )
  return (yield* MembershipRepository.use((m) => m.listByUser(caller.nanoid))).some(
    (m) => m.role === "team_admin" && companyTeams.has(m.team_nanoid)
  )
})

/** The team's account, owned by the caller, who consented by asking; none without a chain. Slow or down: refused. */
const accountFor = Effect.fn("Teams.accountFor")(function* (caller: Caller, team: TeamId) {
  const chain = yield* ChainGateway.present
  if (chain._tag === "None") return undefined
  const created = yield* chain.value.createAccount(caller.wallet, svcAccountSaltOf(team)).pipe(
    Effect.timeoutOrElse({
      duration: accountCreationWait,
      orElse: () => Effect.fail(new ChainUnreachable({ reason: "the team's account was not created in time" }))
    })
  )
  return created.account
})

/** The pending admin invite of `wallet` to the new `team`, with its notice when its user has an e-mail; not yet stored. */
const adminInviteFor = Effect.fn("Teams.adminInviteFor")(function* (
  team: Team,
  wallet: WalletAddress,
  caller: Caller,
  inviter: User | undefined,
  now: string
) {
  const invitee = yield* UserRepository.use((u) => u.findByWallet(wallet))
  const email = Option.match(invitee, { onNone: () => "", onSome: (u) => u.email })
  const { hash } = yield* makeInviteToken
  const { ttlMillis } = yield* InviteSettings
  const invite = adminInviteOf({
    nanoid: yield* IdGenerator.use((ids) => ids.make("invite")),
    team,
    wallet,
    email,
    inviter: caller.nanoid,
    tokenHash: hash,
    now,
    expiresAt: DateTime.formatIso(DateTime.add(yield* DateTime.now, { milliseconds: ttlMillis }))
  })
  const mails = email === "" ? [] : [adminInviteMailOf({ id: yield* makeUuid, invite, team, inviter })]
  return { invite, mails }
})

/** Creates the team, its account first (with a chain), the caller its admin, and the admin invite when asked. */
export const createTeam = Effect.fn("Teams.create")(function* (caller: Caller, body: CreateTeamBody) {
  if (!(yield* administersCompany(caller, body.entity_nanoid))) {
    return yield* new InsufficientPermissions({
      message: "Only a team_admin of a team of this company may create teams"
    })
  }
  const ids = yield* IdGenerator
  const now = DateTime.formatIso(yield* DateTime.now)
  const teamId = yield* ids.make("team")
  // The account comes first, so no team exists without one on a server with a chain (decision 0041).
  const account = yield* accountFor(caller, teamId)
  const team: Team = {
    nanoid: teamId,
    company_nanoid: body.entity_nanoid,
    name: body.name,
    description: body.description ?? "",
    avatar: "",
    svc_account: account ?? "",
    status: "active",
    created_at: now,
    updated_at: now
  }
  const creator = yield* UserRepository.use((u) => u.findById(caller.nanoid))
  const membership = {
    nanoid: yield* ids.make("membership"),
    team_nanoid: team.nanoid,
    user_nanoid: caller.nanoid,
    role: "team_admin" as const,
    email: Option.match(creator, { onNone: () => "", onSome: (u) => u.email }),
    created_at: now
  }
  const added = yield* memberEventOf("team.member_added", membership, team.company_nanoid)
  // Another wallet joins only once it accepts, signed in (decision 0041): it gets a pending admin invite.
  const adminInvite =
    body.admin_wallet === caller.wallet
      ? undefined
      : yield* adminInviteFor(team, body.admin_wallet, caller, Option.getOrUndefined(creator), now)
  // The team, its admin, its event and the admin invite with its notice together: no team is left without its admin
  // or without the invite it was created with.
  yield* withEvents(
    Effect.gen(function* () {
      yield* TeamRepository.use((teams) => teams.insert(team))
      yield* MembershipRepository.use((m) => m.insert(membership)).pipe(Effect.orDie)
      if (adminInvite === undefined) return
      yield* InviteRepository.use((invites) => invites.create([adminInvite.invite]))
      yield* MailOutbox.use((outbox) => outbox.enqueue(adminInvite.mails))
    }),
    () => [added]
  )
  const invite = adminInvite?.invite.nanoid
  return {
    team_nanoid: team.nanoid,
    name: team.name,
    description: team.description,
    entity_nanoid: team.company_nanoid,
    admin_wallet: caller.wallet,
    created_at: team.created_at,
    member_count: 1,
    status: team.status,
    ...(invite === undefined ? {} : { admin_invite_nanoid: invite })
  } satisfies CreatedTeam
})
