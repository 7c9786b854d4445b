/**
 * The memory adapter of the repository ports: the same guarantees as MongoDB, in one process, for fast tests.
 */

import type { Company } from "@svc/domain/company"
import { CompanyRepository } from "@svc/domain/company"
import type { CompanyId, TeamId, UserId } from "@svc/domain/Ids"
import { AlreadyMember, type Membership, MembershipRepository } from "@svc/domain/membership"
import type { MemberSettings, Team, TeamSettings } from "@svc/domain/team"
import { SettingsRepository, TeamRepository } from "@svc/domain/team"
import { type User, UserRepository, WalletTaken } from "@svc/domain/user"
import { Effect, Layer, Option } from "effect"

/** Companies in a Map. */
export const companies = Layer.sync(CompanyRepository, () => {
  const rows = new Map<CompanyId, Company>()
  return CompanyRepository.of({
    insert: (company) =>
      Effect.suspend(() => {
        if (rows.has(company.nanoid)) return Effect.die(new Error(`duplicate company ${company.nanoid}`))
        rows.set(company.nanoid, company)
        return Effect.void
      }),
    findById: (id) => Effect.sync(() => Option.fromNullishOr(rows.get(id)))
  })
})

/** Teams in a Map. */
export const teams = Layer.sync(TeamRepository, () => {
  const rows = new Map<TeamId, Team>()
  return TeamRepository.of({
    insert: (team) =>
      Effect.suspend(() => {
        if (rows.has(team.nanoid)) return Effect.die(new Error(`duplicate team ${team.nanoid}`))
        rows.set(team.nanoid, team)
        return Effect.void
      }),
    findById: (id) => Effect.sync(() => Option.fromNullishOr(rows.get(id))),
    findByIds: (ids) => Effect.sync(() => ids.flatMap((id) => rows.get(id) ?? [])),
    listByCompany: (company) => Effect.sync(() => [...rows.values()].filter((t) => t.company_nanoid === company)),
    update: (id, changes) =>
      Effect.sync(() => {
        const team = rows.get(id)
        if (team === undefined) return Option.none()
        const updated = { ...team, ...changes }
        rows.set(id, updated)
        return Option.some(updated)
      })
  })
})

/** Users in a Map, with the wallet index kept beside it. */
export const users = Layer.sync(UserRepository, () => {
  const rows = new Map<UserId, User>()
  const byWallet = new Map<string, UserId>()
  return UserRepository.of({
    insert: (user) =>
      Effect.suspend(() => {
        const wallet = user.wallet.toLowerCase()
        if (byWallet.has(wallet)) return Effect.fail(new WalletTaken({ wallet }))
        if (rows.has(user.nanoid)) return Effect.die(new Error(`duplicate user ${user.nanoid}`))
        rows.set(user.nanoid, { ...user, email: user.email.toLowerCase() })
        byWallet.set(wallet, user.nanoid)
        return Effect.void
      }),
    findById: (id) => Effect.sync(() => Option.fromNullishOr(rows.get(id))),
    findByIds: (ids) => Effect.sync(() => ids.flatMap((id) => rows.get(id) ?? [])),
    findByWallet: (wallet) =>
      Effect.sync(() => {
        const id = byWallet.get(wallet.toLowerCase())
        return Option.fromNullishOr(id === undefined ? undefined : rows.get(id))
      })
  })
})

const joinOrder = (a: Membership, b: Membership) =>
  a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : a.nanoid < b.nanoid ? -1 : 1

/** Memberships in a Map keyed by team and user. */
export const memberships = Layer.sync(MembershipRepository, () => {
  const rows = new Map<string, Membership>()
  const key = (team: TeamId, user: UserId) => `${team}/${user}`
  return MembershipRepository.of({
    insert: (membership) =>
      Effect.suspend(() => {
        const k = key(membership.team_nanoid, membership.user_nanoid)
        if (rows.has(k))
          return Effect.fail(new AlreadyMember({ team: membership.team_nanoid, user: membership.user_nanoid }))
        rows.set(k, { ...membership, email: membership.email.toLowerCase() })
        return Effect.void
      }),
    find: (team, user) => Effect.sync(() => Option.fromNullishOr(rows.get(key(team, user)))),
    listByUser: (user) => Effect.sync(() => [...rows.values()].filter((m) => m.user_nanoid === user).sort(joinOrder)),
    listTeam: (team, options) =>
      Effect.sync(() => {
        const emails = options.emails === undefined ? undefined : new Set(options.emails.map((e) => e.toLowerCase()))
        const matching = [...rows.values()]
          .filter(
            (m) =>
              m.team_nanoid === team &&
              (emails === undefined || emails.has(m.email)) &&
              (options.roles === undefined || options.roles.includes(m.role))
          )
          .sort(joinOrder)
        const end = options.limit === undefined ? undefined : options.offset + options.limit
        return { members: matching.slice(options.offset, end), total: matching.length }
      }),
    countByTeams: (teams) =>
      Effect.sync(() => {
        const counts = new Map<TeamId, number>(teams.map((t) => [t, 0]))
        for (const m of rows.values()) {
          const count = counts.get(m.team_nanoid)
          if (count !== undefined) counts.set(m.team_nanoid, count + 1)
        }
        return counts
      }),
    remove: (team, user) => Effect.sync(() => rows.delete(key(team, user)))
  })
})

/** Settings in two Maps. */
export const settings = Layer.sync(SettingsRepository, () => {
  const teamRows = new Map<TeamId, TeamSettings>()
  const memberRows = new Map<string, MemberSettings>()
  return SettingsRepository.of({
    getTeam: (team) => Effect.sync(() => Option.fromNullishOr(teamRows.get(team))),
    putTeam: (team, value) => Effect.sync(() => void teamRows.set(team, value)),
    getMember: (team, user) => Effect.sync(() => Option.fromNullishOr(memberRows.get(`${team}/${user}`))),
    putMember: (team, user, value) => Effect.sync(() => void memberRows.set(`${team}/${user}`, value))
  })
})

/** Every repository of this issue, in memory. */
export const layer = Layer.mergeAll(companies, teams, users, memberships, settings)
