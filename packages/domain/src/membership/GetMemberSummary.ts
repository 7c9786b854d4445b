/** A member's summary in a team (SPEC §4.4): profile, role, company and pay schedules. */
import { Effect } from "effect"
import { CompanyNotFound } from "../company/CompanyNotFound.ts"
import { CompanyRepository } from "../company/CompanyRepository.ts"
import type { TeamId, UserId } from "../Ids.ts"
import type { Caller } from "../user/Caller.ts"
import { UserNotFound } from "../user/UserNotFound.ts"
import { UserRepository } from "../user/UserRepository.ts"
import { memberOf } from "./MemberOf.ts"
import { toMemberSummary } from "./MemberSummary.ts"
import { TeamAccess } from "./TeamAccess.ts"

/** The summary of `user` in `team` (`member.summary`: the team's managers, or the member themself). */
export const getMemberSummary = Effect.fn("Teams.memberSummary")(function* (
  caller: Caller,
  team: TeamId,
  user: UserId
) {
  const { team: found } = yield* TeamAccess.use((access) => access.authorize(caller, team, "member.summary", user))
  const membership = yield* memberOf(team, user)
  const profile = yield* UserRepository.use((u) => u.findById(user))
  if (profile._tag === "None") return yield* new UserNotFound({ user })
  const company = yield* CompanyRepository.use((c) => c.findById(found.company_nanoid))
  if (company._tag === "None") return yield* new CompanyNotFound({ company: found.company_nanoid })
  return toMemberSummary(profile.value, membership, company.value)
})
