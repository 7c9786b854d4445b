/** Pending invites (SPEC §2.6): of a team, or of every team of a company the caller manages, newest first. */
import { Effect, Option } from "effect"
import { CompanyNotFound } from "../company/CompanyNotFound.ts"
import { CompanyRepository } from "../company/CompanyRepository.ts"
import type { CompanyId, TeamId } from "../Ids.ts"
import { InsufficientPermissions } from "../membership/MembershipErrors.ts"
import { MembershipRepository } from "../membership/MembershipRepository.ts"
import { isAllowed } from "../membership/Permission.ts"
import { TeamAccess } from "../membership/TeamAccess.ts"
import type { Team } from "../team/Team.ts"
import { TeamRepository } from "../team/TeamRepository.ts"
import type { Caller } from "../user/Caller.ts"
import { displayNameOf } from "../user/User.ts"
import { UserRepository } from "../user/UserRepository.ts"
import type { Invite, InviteView } from "./Invite.ts"
import { InviteRepository } from "./InviteRepository.ts"

/** The invites as the list shows them, with their inviters (unless anonymous), teams and companies. */
const viewsOf = Effect.fn("Invites.viewsOf")(function* (
  list: ReadonlyArray<Invite>,
  teamsById: ReadonlyMap<TeamId, Team>,
  companyOf: (team: Team) => { readonly name: string; readonly avatar: string }
) {
  const inviterIds = [...new Set(list.map((i) => i.inviter_nanoid))]
  const inviters = new Map((yield* UserRepository.use((u) => u.findByIds(inviterIds))).map((u) => [u.nanoid, u]))
  return list.flatMap((invite): Array<InviteView> => {
    const team = teamsById.get(invite.team_nanoid)
    if (team === undefined) return []
    const inviter = invite.anonymous ? undefined : inviters.get(invite.inviter_nanoid)
    return [
      {
        nanoid: invite.nanoid,
        invitee_name: invite.invitee_name,
        email: invite.email,
        inviter_name: inviter === undefined ? "" : displayNameOf(inviter),
        inviter_email: inviter?.email ?? "",
        company: companyOf(team),
        team: { name: team.name, avatar: team.avatar }
      }
    ]
  })
})

/** A team's pending invites (`invites.read`). */
const ofTeam = Effect.fn("Invites.listTeam")(function* (caller: Caller, team: TeamId) {
  const { team: found } = yield* TeamAccess.use((access) => access.authorize(caller, team, "invites.read"))
  const company = yield* CompanyRepository.use((c) => c.findById(found.company_nanoid))
  const pending = yield* InviteRepository.use((invites) => invites.listByTeams([found.nanoid], ["pending"]))
  return yield* viewsOf(pending, new Map([[found.nanoid, found]]), () => ({
    name: Option.match(company, { onNone: () => "", onSome: (c) => c.name }),
    avatar: Option.match(company, { onNone: () => "", onSome: (c) => c.avatar })
  }))
})

/** The pending invites of the company's active teams whose invites the caller may read. */
const ofCompany = Effect.fn("Invites.listCompany")(function* (caller: Caller, companyId: CompanyId) {
  const company = yield* CompanyRepository.use((c) => c.findById(companyId))
  if (Option.isNone(company)) return yield* new CompanyNotFound({ company: companyId })
  const active = (yield* TeamRepository.use((t) => t.listByCompany(companyId))).filter((t) => t.status === "active")
  const mine = new Map(
    (yield* MembershipRepository.use((m) => m.listByUser(caller.nanoid))).map((m) => [m.team_nanoid, m.role])
  )
  const managed = active.filter((t) => {
    const role = mine.get(t.nanoid)
    return role !== undefined && isAllowed(role, "invites.read")
  })
  if (managed.length === 0) return yield* new InsufficientPermissions({ message: "You manage no team of this company" })
  const pending = yield* InviteRepository.use((invites) =>
    invites.listByTeams(
      managed.map((t) => t.nanoid),
      ["pending"]
    )
  )
  return yield* viewsOf(pending, new Map(managed.map((t) => [t.nanoid, t])), () => ({
    name: company.value.name,
    avatar: company.value.avatar
  }))
})

/** The pending invites of a team (`te-…`) or of a company (`co-…`) the caller manages. */
export const listInvites = Effect.fn("Invites.list")(function* (caller: Caller, nanoid: TeamId | CompanyId) {
  return nanoid.startsWith("te-")
    ? yield* ofTeam(caller, nanoid as TeamId)
    : yield* ofCompany(caller, nanoid as CompanyId)
})
