/**
 * The team routes (SPEC §4.2, §4.4, §4.10, §4.12): teams, their users, members and settings.
 */
import { ChainGateway, svcAccountSaltOf } from "@svc/domain/chain"
import { CompanyRepository } from "@svc/domain/company"
import { IdGenerator, type TeamId, type UserId } from "@svc/domain/Ids"
import { MembershipRepository, toMemberSummary } from "@svc/domain/membership"
import {
  defaultMemberSettings,
  defaultTeamSettings,
  SettingsRepository,
  type Team,
  TeamRepository,
  type TeamView
} from "@svc/domain/team"
import { maxEmails, newUser, pageRequest, pagination, toTeamUser, UserRepository } from "@svc/domain/user"
import { DateTime, Effect, Option } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import type { Address } from "viem"
import { Api } from "../Api.ts"
import { apiError } from "../ApiError.ts"
import { CurrentUser } from "../Authentication.ts"
import { authorize } from "./TeamAccess.ts"
import { TeamBalances } from "./TeamBalances.ts"

const nowIso = Effect.map(DateTime.now, DateTime.formatIso)

/** The team as `GET /v2/teams/{team_nanoid}` shows it: its admins and finance admins, and its balance. */
const teamView = Effect.fn("TeamHandlers.teamView")(function* (team: Team) {
  const memberships = yield* MembershipRepository
  const users = yield* UserRepository
  const admins = yield* memberships.listTeam(team.nanoid, {
    roles: ["team_admin", "team_finance_admin"],
    offset: 0,
    limit: undefined
  })
  const profiles = new Map((yield* users.findByIds(admins.members.map((m) => m.user_nanoid))).map((u) => [u.nanoid, u]))
  const balance = yield* TeamBalances.use((b) => b.balanceCents(team))
  const view: TeamView = {
    nanoid: team.nanoid,
    name: team.name,
    avatar: team.avatar,
    balance,
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

/** The membership of `user` in `team`, or 404 MEMBER_NOT_FOUND. */
const memberOf = Effect.fn("TeamHandlers.memberOf")(function* (team: TeamId, user: UserId) {
  const membership = yield* MembershipRepository.use((m) => m.find(team, user))
  if (membership._tag === "None") return yield* Effect.fail(apiError("MEMBER_NOT_FOUND"))
  return membership.value
})

/** The e-mails of a team users query: repeated keys and comma-separated lists, trimmed, at most 100. */
const emailFilter = (emails: ReadonlyArray<string> | undefined) => {
  if (emails === undefined) return Effect.succeed(undefined)
  const all = emails
    .flatMap((e) => e.split(","))
    .map((e) => e.trim().toLowerCase())
    .filter((e) => e !== "")
  if (all.length > maxEmails) {
    return Effect.fail(apiError("VALIDATION_ERROR", `At most ${maxEmails} e-mails may be given, got ${all.length}`))
  }
  if (all.some((e) => e.length > 254))
    return Effect.fail(apiError("VALIDATION_ERROR", "An e-mail is longer than 254 characters"))
  return Effect.succeed(all.length === 0 ? undefined : all)
}

/** The team handlers. */
export const TeamHandlers = HttpApiBuilder.group(Api, "teams", (handlers) =>
  handlers
    .handle("listMine", () =>
      Effect.gen(function* () {
        const me = yield* CurrentUser
        const memberships = yield* MembershipRepository
        const mine = yield* memberships.listByUser(me.nanoid)
        const teams = (yield* TeamRepository.use((t) => t.findByIds(mine.map((m) => m.team_nanoid)))).filter(
          (t) => t.status === "active"
        )
        const counts = yield* memberships.countByTeams(teams.map((t) => t.nanoid))
        const byId = new Map(teams.map((t) => [t.nanoid, t]))
        return {
          success: true as const,
          data: {
            teams: mine.flatMap((m) => {
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
          }
        }
      })
    )
    .handle("create", ({ payload }) =>
      Effect.gen(function* () {
        const me = yield* CurrentUser
        const company = yield* CompanyRepository.use((c) => c.findById(payload.entity_nanoid))
        if (company._tag === "None") return yield* Effect.fail(apiError("COMPANY_NOT_FOUND"))
        const memberships = yield* MembershipRepository
        const teams = yield* TeamRepository
        const companyTeams = new Set(
          (yield* teams.listByCompany(company.value.nanoid)).filter((t) => t.status === "active").map((t) => t.nanoid)
        )
        const adminOfCompany = (yield* memberships.listByUser(me.nanoid)).some(
          (m) => m.role === "team_admin" && companyTeams.has(m.team_nanoid)
        )
        if (!adminOfCompany) {
          return yield* Effect.fail(
            apiError("INSUFFICIENT_PERMISSIONS", "Only a team_admin of a team of this company may create teams")
          )
        }
        const ids = yield* IdGenerator
        const users = yield* UserRepository
        const now = yield* nowIso
        const existingAdmin = yield* users.findByWallet(payload.admin_wallet)
        const admin = Option.isSome(existingAdmin)
          ? existingAdmin.value
          : newUser({ nanoid: yield* ids.make("user"), wallet: payload.admin_wallet, created_at: now })
        if (Option.isNone(existingAdmin)) {
          yield* users.insert(admin).pipe(Effect.catchTag("WalletTaken", () => Effect.void))
        }
        const adminUser = Option.getOrElse(yield* users.findByWallet(payload.admin_wallet), () => admin)
        const team: Team = {
          nanoid: yield* ids.make("team"),
          company_nanoid: company.value.nanoid,
          name: payload.name,
          description: payload.description ?? "",
          avatar: "",
          svc_account: "",
          status: "active",
          created_at: now,
          updated_at: now
        }
        yield* teams.insert(team)
        yield* memberships
          .insert({
            nanoid: yield* ids.make("membership"),
            team_nanoid: team.nanoid,
            user_nanoid: adminUser.nanoid,
            role: "team_admin",
            email: adminUser.email,
            created_at: now
          })
          .pipe(Effect.orDie)
        return {
          success: true as const,
          data: {
            team_nanoid: team.nanoid,
            name: team.name,
            description: team.description,
            entity_nanoid: team.company_nanoid,
            admin_wallet: adminUser.wallet,
            created_at: team.created_at,
            member_count: 1,
            status: team.status
          }
        }
      })
    )
    .handle("get", ({ params }) =>
      Effect.gen(function* () {
        const { team } = yield* authorize(params.team_nanoid, "team.read")
        return { success: true as const, data: yield* teamView(team) }
      })
    )
    .handle("update", ({ params, payload }) =>
      Effect.gen(function* () {
        yield* authorize(params.team_nanoid, "team.update")
        const updated = yield* TeamRepository.use((t) =>
          Effect.flatMap(nowIso, (now) => t.update(params.team_nanoid, { ...payload, updated_at: now }))
        )
        if (updated._tag === "None") return yield* Effect.fail(apiError("TEAM_NOT_FOUND"))
        return { success: true as const, data: yield* teamView(updated.value) }
      })
    )
    .handle("delete", ({ params }) =>
      Effect.gen(function* () {
        yield* authorize(params.team_nanoid, "team.delete")
        yield* TeamRepository.use((t) =>
          Effect.flatMap(nowIso, (now) => t.update(params.team_nanoid, { status: "deleted", updated_at: now }))
        )
        return { success: true as const, data: { team_nanoid: params.team_nanoid, deleted: true } }
      })
    )
    .handle("users", ({ params, query }) =>
      Effect.gen(function* () {
        const { team } = yield* authorize(params.team_nanoid, "team.users.list")
        const emails = yield* emailFilter(query.emails)
        const request = pageRequest(query)
        const page = yield* MembershipRepository.use((m) =>
          m.listTeam(team.nanoid, { emails, offset: request.offset, limit: request.paged ? request.count : undefined })
        )
        const profiles = new Map(
          (yield* UserRepository.use((u) => u.findByIds(page.members.map((m) => m.user_nanoid)))).map((u) => [
            u.nanoid,
            u
          ])
        )
        // Each member's own svc account (where the team pays them); unknown without a chain.
        const chain = yield* Effect.serviceOption(ChainGateway)
        const users = yield* Effect.forEach(
          page.members.flatMap((m) => {
            const user = profiles.get(m.user_nanoid)
            return user === undefined ? [] : [{ user, role: m.role }]
          }),
          ({ user, role }) =>
            Effect.map(
              chain._tag === "Some"
                ? chain.value.accountAddress(user.wallet as Address, svcAccountSaltOf(user.nanoid))
                : Effect.succeed(""),
              (account) => toTeamUser(user, role, account)
            )
        )
        return {
          success: true as const,
          data: { users, pagination: pagination(request, page.members.length, page.total) }
        }
      })
    )
    .handle("memberSummary", ({ params }) =>
      Effect.gen(function* () {
        const { team } = yield* authorize(params.team_nanoid, "member.summary", params.user_nanoid)
        const membership = yield* memberOf(team.nanoid, params.user_nanoid)
        const user = yield* UserRepository.use((u) => u.findById(params.user_nanoid))
        if (user._tag === "None") return yield* Effect.fail(apiError("USER_NOT_FOUND"))
        const company = yield* CompanyRepository.use((c) => c.findById(team.company_nanoid))
        if (company._tag === "None") return yield* Effect.fail(apiError("COMPANY_NOT_FOUND"))
        return { success: true as const, data: toMemberSummary(user.value, membership.role, company.value) }
      })
    )
    .handle("removeMember", ({ params }) =>
      Effect.gen(function* () {
        const { team } = yield* authorize(params.team_nanoid, "member.remove", params.user_nanoid)
        const membership = yield* memberOf(team.nanoid, params.user_nanoid)
        const memberships = yield* MembershipRepository
        if (membership.role === "team_admin") {
          const admins = yield* memberships.listTeam(team.nanoid, { roles: ["team_admin"], offset: 0, limit: 2 })
          if (admins.total <= 1) return yield* Effect.fail(apiError("LAST_ADMIN"))
        }
        yield* memberships.remove(team.nanoid, params.user_nanoid)
        return {
          success: true as const,
          data: { team_nanoid: team.nanoid, user_nanoid: params.user_nanoid, removed: true }
        }
      })
    )
    .handle("getSettings", ({ params }) =>
      Effect.gen(function* () {
        yield* authorize(params.team_nanoid, "team.settings.read")
        const stored = yield* SettingsRepository.use((s) => s.getTeam(params.team_nanoid))
        return { success: true as const, data: Option.getOrElse(stored, () => defaultTeamSettings) }
      })
    )
    .handle("updateSettings", ({ params, payload }) =>
      Effect.gen(function* () {
        yield* authorize(params.team_nanoid, "team.settings.update")
        const settings = yield* SettingsRepository
        const current = Option.getOrElse(yield* settings.getTeam(params.team_nanoid), () => defaultTeamSettings)
        const next = { ...current, ...payload }
        yield* settings.putTeam(params.team_nanoid, next)
        return { success: true as const, data: next }
      })
    )
    .handle("getMemberSettings", ({ params }) =>
      Effect.gen(function* () {
        yield* authorize(params.team_nanoid, "member.settings.read", params.user_nanoid)
        yield* memberOf(params.team_nanoid, params.user_nanoid)
        const stored = yield* SettingsRepository.use((s) => s.getMember(params.team_nanoid, params.user_nanoid))
        return { success: true as const, data: Option.getOrElse(stored, () => defaultMemberSettings) }
      })
    )
    .handle("updateMemberSettings", ({ params, payload }) =>
      Effect.gen(function* () {
        yield* authorize(params.team_nanoid, "member.settings.update", params.user_nanoid)
        yield* memberOf(params.team_nanoid, params.user_nanoid)
        const settings = yield* SettingsRepository
        const current = Option.getOrElse(
          yield* settings.getMember(params.team_nanoid, params.user_nanoid),
          () => defaultMemberSettings
        )
        const next = { ...current, ...payload }
        yield* settings.putMember(params.team_nanoid, params.user_nanoid, next)
        return { success: true as const, data: next }
      })
    )
)
