/**
 * The team use cases (SPEC §4.2, §4.4, §4.10, §4.12): teams, their users, members and settings, each for a caller
 * the access check lets through (docs/authorization.md).
 */
import { Context, DateTime, Effect, Layer, Option } from "effect"
import { ChainUnavailable, type SettlementReverted } from "../chain/ChainError.ts"
import { ChainGateway } from "../chain/ChainGateway.ts"
import { svcAccountSaltOf } from "../chain/SvcAccountSalt.ts"
import { CompanyNotFound } from "../company/CompanyNotFound.ts"
import { CompanyRepository } from "../company/CompanyRepository.ts"
import type { WalletAddress } from "../Evm.ts"
import { makeUuid } from "../event/EventEnvelope.ts"
import { IdGenerator, type TeamId, type UserId } from "../Ids.ts"
import { adminInviteMailOf, adminInviteOf } from "../invite/AdminInvite.ts"
import { InviteRepository } from "../invite/InviteRepository.ts"
import { InviteSettings } from "../invite/InviteSettings.ts"
import { makeInviteToken } from "../invite/InviteToken.ts"
import { memberEventOf } from "../membership/MemberEvents.ts"
import { type MemberSummary, toMemberSummary } from "../membership/MemberSummary.ts"
import {
  AuthorityNotRevoked,
  InsufficientPermissions,
  LastAdmin,
  LastOnChainAdmin,
  MemberNotFound
} from "../membership/MembershipErrors.ts"
import { MembershipRepository } from "../membership/MembershipRepository.ts"
import { TeamAccess } from "../membership/TeamAccess.ts"
import { cancelIntentsSignedBy } from "../payment/IntentCancellation.ts"
import { PaymentLedger } from "../payment/PaymentLedger.ts"
import { Randomness } from "../Randomness.ts"
import type { Caller } from "../user/Caller.ts"
import { type Pagination, pageRequest, pagination, type TeamUser, toTeamUser } from "../user/TeamUser.ts"
import type { User } from "../user/User.ts"
import { userAccountOf } from "../user/UserAccount.ts"
import { UserNotFound } from "../user/UserNotFound.ts"
import { UserRepository } from "../user/UserRepository.ts"
import { SettingsRepository } from "./SettingsRepository.ts"
import {
  type CreatedTeam,
  type CreateTeamBody,
  type Team,
  type TeamListItem,
  type TeamView,
  teamAccountOf,
  type UpdateTeamBody
} from "./Team.ts"
import { TeamBalances } from "./TeamBalances.ts"
import { TeamNotEmpty, TeamNotFound } from "./TeamNotFound.ts"
import { TeamRepository } from "./TeamRepository.ts"
import {
  defaultMemberSettings,
  defaultTeamSettings,
  type MemberSettings,
  type TeamSettings,
  type UpdateMemberSettingsBody,
  type UpdateTeamSettingsBody
} from "./TeamSettings.ts"

/** Which users of a team to list: e-mails in normal form (`EmailFilter`), and a page when `page` or `offset` is set. */
export interface TeamUsersRequest {
  readonly emails?: ReadonlyArray<string> | undefined
  readonly page?: number | undefined
  readonly offset?: number | undefined
  readonly count?: number | undefined
}

/**
 * How long creating a team waits for its account on chain before answering `SERVICE_UNAVAILABLE` (decision 0041):
 * a few blocks on Arbitrum, far more than anvil needs.
 */
export const accountCreationWait = "30 seconds"

/** Why a team action is refused. */
export type TeamError = TeamNotFound | InsufficientPermissions

/** Teams and their members, for a caller. */
export class Teams extends Context.Service<
  Teams,
  {
    /** The active teams the caller is a member of, with the caller's role. */
    readonly listMine: (caller: Caller) => Effect.Effect<ReadonlyArray<TeamListItem>>
    /**
     * A team in a company the caller administers (a `team_admin` of one of its teams). The caller becomes its
     * `team_admin` and, with a chain, the owner of its account, created first; another `admin_wallet` gets a pending
     * admin invite (decision 0041).
     */
    readonly create: (
      caller: Caller,
      body: CreateTeamBody
    ) => Effect.Effect<CreatedTeam, InsufficientPermissions | ChainUnavailable | SettlementReverted>
    /** The team with its administrators and balance. */
    readonly get: (caller: Caller, team: TeamId) => Effect.Effect<TeamView, TeamError>
    readonly update: (caller: Caller, team: TeamId, changes: UpdateTeamBody) => Effect.Effect<TeamView, TeamError>
    /** Marks the team deleted; its id stays taken. */
    readonly delete: (
      caller: Caller,
      team: TeamId
    ) => Effect.Effect<{ readonly team_nanoid: TeamId; readonly deleted: true }, TeamError | TeamNotEmpty>
    readonly users: (
      caller: Caller,
      team: TeamId,
      request: TeamUsersRequest
    ) => Effect.Effect<{ readonly users: ReadonlyArray<TeamUser>; readonly pagination: Pagination }, TeamError>
    readonly memberSummary: (
      caller: Caller,
      team: TeamId,
      user: UserId
    ) => Effect.Effect<MemberSummary, TeamError | MemberNotFound | UserNotFound | CompanyNotFound>
    /**
     * Removes a member; the team's last `team_admin` stays (`LastAdmin`). With a chain and a team account, the
     * member's wallet loses its authority on chain first (decision 0020): when the chain refuses or is down the
     * removal fails and nothing changes; the account's owner goes only when another admin holds `team_admin` on
     * chain (`LastOnChainAdmin`).
     */
    readonly removeMember: (
      caller: Caller,
      team: TeamId,
      user: UserId
    ) => Effect.Effect<
      { readonly team_nanoid: TeamId; readonly user_nanoid: UserId; readonly removed: true },
      TeamError | MemberNotFound | LastAdmin | LastOnChainAdmin | AuthorityNotRevoked
    >
    readonly settings: (caller: Caller, team: TeamId) => Effect.Effect<TeamSettings, TeamError>
    readonly updateSettings: (
      caller: Caller,
      team: TeamId,
      changes: UpdateTeamSettingsBody
    ) => Effect.Effect<TeamSettings, TeamError>
    readonly memberSettings: (
      caller: Caller,
      team: TeamId,
      user: UserId
    ) => Effect.Effect<MemberSettings, TeamError | MemberNotFound>
    readonly updateMemberSettings: (
      caller: Caller,
      team: TeamId,
      user: UserId,
      changes: UpdateMemberSettingsBody
    ) => Effect.Effect<MemberSettings, TeamError | MemberNotFound>
  }
>()("@svc/domain/team/Teams") {
  /**
   * On the repositories, the payments ledger, `IdGenerator`, `Randomness` (event keys), `TeamBalances` and
   * `InviteSettings`; with a `ChainGateway` in context, new teams get their account and team users show their svc
   * account (empty without one).
   */
  static readonly layer = Layer.effect(
    Teams,
    Effect.gen(function* () {
      const access = yield* TeamAccess
      const teams = yield* TeamRepository
      const memberships = yield* MembershipRepository
      const users = yield* UserRepository
      const companies = yield* CompanyRepository
      const settings = yield* SettingsRepository
      const ids = yield* IdGenerator
      const balances = yield* TeamBalances
      const ledger = yield* PaymentLedger
      const chain = yield* Effect.serviceOption(ChainGateway)
      const randomness = yield* Randomness
      const invites = yield* InviteRepository
      const inviteSettings = yield* InviteSettings
      /** A membership event, written with the change (`MembershipRepository.insert`/`remove`). */
      const memberEvent = (...args: Parameters<typeof memberEventOf>) =>
        memberEventOf(...args).pipe(
          Effect.provideService(IdGenerator, ids),
          Effect.provideService(Randomness, randomness)
        )
      const nowIso = Effect.map(DateTime.now, DateTime.formatIso)

      /** The team as `GET /v2/teams/{team_nanoid}` shows it: its admins and finance admins, and its balance. */
      const viewOf = Effect.fn("Teams.viewOf")(function* (team: Team) {
        const admins = yield* memberships.listTeam(team.nanoid, {
          roles: ["team_admin", "team_finance_admin"],
          offset: 0,
          limit: undefined
        })
        const profiles = new Map(
          (yield* users.findByIds(admins.members.map((m) => m.user_nanoid))).map((u) => [u.nanoid, u])
        )
        const view: TeamView = {
          nanoid: team.nanoid,
          name: team.name,
          avatar: team.avatar,
          balance: yield* balances.balanceCents(team),
          administrators: admins.members.map((m) => {
            const user = profiles.get(m.user_nanoid)
            return {
              relationship_nanoid: m.nanoid,
              user_nanoid: m.user_nanoid,
              avatar: user?.avatar ?? "",
              first_name: user?.first_name ?? "",
              last_name: user?.last_name ?? "",
              email: user?.email ?? "",
              type: m.role
            }
          })
        }
        return view
      })

      /** The pending admin invite of `wallet` to the new `team`, with a notice when its user has an e-mail. */
      const inviteAdmin = Effect.fn("Teams.inviteAdmin")(function* (
        team: Team,
        wallet: WalletAddress,
        caller: Caller,
        inviter: User | undefined,
        now: string
      ) {
        const invitee = yield* users.findByWallet(wallet)
        const email = Option.match(invitee, { onNone: () => "", onSome: (u) => u.email })
        const { hash } = yield* makeInviteToken.pipe(Effect.provideService(Randomness, randomness))
        const invite = adminInviteOf({
          nanoid: yield* ids.make("invite"),
          team,
          wallet,
          email,
          inviter: caller.nanoid,
          tokenHash: hash,
          now,
          expiresAt: DateTime.formatIso(DateTime.add(yield* DateTime.now, { milliseconds: inviteSettings.ttlMillis }))
        })
        const mails =
          email === ""
            ? []
            : [
                adminInviteMailOf({
                  id: yield* makeUuid.pipe(Effect.provideService(Randomness, randomness)),
                  invite,
                  team,
                  inviter
                })
              ]
        yield* invites.create([invite], mails)
        return invite.nanoid
      })

      /** The membership of `user` in `team`, or `MemberNotFound`. */
      const memberOf = Effect.fn("Teams.memberOf")(function* (team: TeamId, user: UserId) {
        const membership = yield* memberships.find(team, user)
        if (membership._tag === "None") return yield* new MemberNotFound({ team, user })
        return membership.value
      })

      return Teams.of({
        listMine: Effect.fn("Teams.listMine")(function* (caller) {
          const mine = yield* memberships.listByUser(caller.nanoid)
          const active = (yield* teams.findByIds(mine.map((m) => m.team_nanoid))).filter((t) => t.status === "active")
          const counts = yield* memberships.countByTeams(active.map((t) => t.nanoid))
          const byId = new Map(active.map((t) => [t.nanoid, t]))
          return mine.flatMap((m) => {
            const team = byId.get(m.team_nanoid)
            if (team === undefined) return []
            return [
              {
                nanoid: team.nanoid,
                name: team.name,
                description: team.description,
                member_count: counts.get(team.nanoid) ?? 0,
                status: team.status,
                role: m.role
              }
            ]
          })
        }),

        create: Effect.fn("Teams.create")(function* (caller, body) {
          // An unknown company and someone else's answer alike, so the answer reveals no company ids.
          const companyTeams = new Set(
            (yield* teams.listByCompany(body.entity_nanoid)).filter((t) => t.status === "active").map((t) => t.nanoid)
          )
          const adminOfCompany = (yield* memberships.listByUser(caller.nanoid)).some(
            (m) => m.role === "team_admin" && companyTeams.has(m.team_nanoid)
          )
          if (!adminOfCompany) {
            return yield* new InsufficientPermissions({
              message: "Only a team_admin of a team of this company may create teams"
            })
          }
          const now = yield* nowIso
          const teamId = yield* ids.make("team")
          // The account's owner is the creator, who consented by asking; the account comes first, so no team exists
          // without one on a server with a chain (decision 0041). A chain that is down or slow fails the request.
          const account =
            chain._tag === "None"
              ? undefined
              : (yield* chain.value.createAccount(caller.wallet, svcAccountSaltOf(teamId)).pipe(
                  Effect.timeoutOrElse({
                    duration: accountCreationWait,
                    orElse: () =>
                      Effect.fail(new ChainUnavailable({ reason: "the team's account was not created in time" }))
                  })
                )).account
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
          yield* teams.insert(team)
          const creator = yield* users.findById(caller.nanoid)
          const membership = {
            nanoid: yield* ids.make("membership"),
            team_nanoid: team.nanoid,
            user_nanoid: caller.nanoid,
            role: "team_admin" as const,
            email: Option.match(creator, { onNone: () => "", onSome: (u) => u.email }),
            created_at: now
          }
          yield* memberships
            .insert(membership, [yield* memberEvent("team.member_added", membership, team.company_nanoid)])
            .pipe(Effect.orDie)
          // Another wallet joins only once it accepts, signed in (decision 0041): it gets a pending admin invite.
          const invite =
            body.admin_wallet === caller.wallet
              ? undefined
              : yield* inviteAdmin(team, body.admin_wallet, caller, Option.getOrUndefined(creator), now)
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
          }
        }),

        get: Effect.fn("Teams.get")(function* (caller, team) {
          const { team: found } = yield* access.authorize(caller, team, "team.read")
          return yield* viewOf(found)
        }),

        update: Effect.fn("Teams.update")(function* (caller, team, changes) {
          yield* access.authorize(caller, team, "team.update")
          const updated = yield* teams.update(team, { ...changes, updated_at: yield* nowIso })
          if (updated._tag === "None") return yield* new TeamNotFound({ team })
          return yield* viewOf(updated.value)
        }),

        delete: Effect.fn("Teams.delete")(function* (caller, team) {
          const { team: found } = yield* access.authorize(caller, team, "team.delete")
          // Money or intents left behind would have no team to pay them out from.
          const account = teamAccountOf(found)
          const held =
            chain._tag === "Some" && account !== undefined
              ? yield* chain.value.balanceOf(account).pipe(Effect.orDie)
              : 0n
          if (held > 0n) {
            return yield* new TeamNotEmpty({ team, message: "The team still holds money: pay it out first" })
          }
          const pending = yield* ledger.list({ states: ["intent", "scheduled"], payer: team })
          if (pending.length > 0) {
            return yield* new TeamNotEmpty({
              team,
              message: `The team has ${pending.length} intent(s) waiting to be paid: let them run or expire first`
            })
          }
          yield* teams.update(team, { status: "deleted", updated_at: yield* nowIso })
          return { team_nanoid: team, deleted: true as const }
        }),

        users: Effect.fn("Teams.users")(function* (caller, team, request) {
          yield* access.authorize(caller, team, "team.users.list")
          const emails = request.emails === undefined || request.emails.length === 0 ? undefined : request.emails
          const page = pageRequest(request)
          const members = yield* memberships.listTeam(team, {
            emails,
            offset: page.offset,
            limit: page.paged ? page.count : undefined
          })
          const profiles = new Map(
            (yield* users.findByIds(members.members.map((m) => m.user_nanoid))).map((u) => [u.nanoid, u])
          )
          const listedMembers = members.members.flatMap((m) => {
            const user = profiles.get(m.user_nanoid)
            return user === undefined ? [] : [{ user, role: m.role }]
          })
          // Each member's own svc account (where the team pays them); unknown without a chain.
          const listed =
            chain._tag === "None"
              ? listedMembers.map(({ user, role }) => toTeamUser(user, role, ""))
              : yield* Effect.forEach(listedMembers, ({ user, role }) =>
                  Effect.map(userAccountOf(chain.value, user), (account) => toTeamUser(user, role, account))
                )
          return { users: listed, pagination: pagination(page, members.members.length, members.total) }
        }),

        memberSummary: Effect.fn("Teams.memberSummary")(function* (caller, team, user) {
          const { team: found } = yield* access.authorize(caller, team, "member.summary", user)
          const membership = yield* memberOf(team, user)
          const profile = yield* users.findById(user)
          if (profile._tag === "None") return yield* new UserNotFound({ user })
          const company = yield* companies.findById(found.company_nanoid)
          if (company._tag === "None") return yield* new CompanyNotFound({ company: found.company_nanoid })
          return toMemberSummary(profile.value, membership.role, company.value)
        }),

        removeMember: Effect.fn("Teams.removeMember")(function* (caller, team, user) {
          const grant = yield* access.authorize(caller, team, "member.remove", user)
          const membership = yield* memberOf(team, user)
          if (membership.role === "team_admin") {
            const admins = yield* memberships.listTeam(team, { roles: ["team_admin"], offset: 0, limit: 2 })
            if (admins.total <= 1) return yield* new LastAdmin({ team })
          }
          // Chain first: a removal the chain refused would leave a wallet that can still pay (decision 0020).
          const account = teamAccountOf(grant.team)
          if (chain._tag === "Some" && account !== undefined) {
            const member = yield* users.findById(user)
            if (member._tag === "Some") {
              const gateway = chain.value
              const wallet = member.value.wallet
              const notRevoked = (error: SettlementReverted | ChainUnavailable) =>
                new AuthorityNotRevoked({
                  team,
                  wallet,
                  unavailable: error._tag === "ChainUnavailable",
                  reason: error.reason
                })
              // Nothing can name a new owner, so the owner goes only when another admin can still pay on chain.
              const owner = yield* gateway.ownerOf(account).pipe(Effect.mapError(notRevoked))
              if (owner !== undefined && owner.toLowerCase() === wallet) {
                const admins = yield* memberships.listTeam(team, {
                  roles: ["team_admin"],
                  offset: 0,
                  limit: undefined
                })
                const others = yield* users.findByIds(
                  admins.members.filter((m) => m.user_nanoid !== user).map((m) => m.user_nanoid)
                )
                const onChain = yield* Effect.forEach(
                  others,
                  (other) => gateway.hasRole(account, "team_admin", other.wallet),
                  { concurrency: 4 }
                ).pipe(Effect.mapError(notRevoked))
                if (!onChain.some((has) => has)) return yield* new LastOnChainAdmin({ team })
              }
              yield* gateway.revokeAuthority(account, [wallet]).pipe(Effect.mapError(notRevoked))
            }
          }
          yield* memberships.remove(team, user, [
            yield* memberEvent("team.member_removed", membership, grant.team.company_nanoid)
          ])
          // Their authority ends with them: the intents they registered and that have not started are canceled.
          yield* cancelIntentsSignedBy(team, user).pipe(
            Effect.provideService(PaymentLedger, ledger),
            Effect.provideService(TeamRepository, teams),
            Effect.provideService(UserRepository, users),
            Effect.provideService(IdGenerator, ids),
            Effect.provideService(Randomness, randomness)
          )
          return { team_nanoid: team, user_nanoid: user, removed: true as const }
        }),

        settings: Effect.fn("Teams.settings")(function* (caller, team) {
          yield* access.authorize(caller, team, "team.settings.read")
          return Option.getOrElse(yield* settings.getTeam(team), () => defaultTeamSettings)
        }),

        updateSettings: Effect.fn("Teams.updateSettings")(function* (caller, team, changes) {
          yield* access.authorize(caller, team, "team.settings.update")
          const current = Option.getOrElse(yield* settings.getTeam(team), () => defaultTeamSettings)
          const next = { ...current, ...changes }
          yield* settings.putTeam(team, next)
          return next
        }),

        memberSettings: Effect.fn("Teams.memberSettings")(function* (caller, team, user) {
          yield* access.authorize(caller, team, "member.settings.read", user)
          yield* memberOf(team, user)
          return Option.getOrElse(yield* settings.getMember(team, user), () => defaultMemberSettings)
        }),

        updateMemberSettings: Effect.fn("Teams.updateMemberSettings")(function* (caller, team, user, changes) {
          yield* access.authorize(caller, team, "member.settings.update", user)
          yield* memberOf(team, user)
          const current = Option.getOrElse(yield* settings.getMember(team, user), () => defaultMemberSettings)
          const next = { ...current, ...changes }
          yield* settings.putMember(team, user, next)
          return next
        })
      })
    })
  ).pipe(Layer.provide(TeamAccess.layer))
}
