/**
 * The events of a team's membership (SPEC §6): a member added, a member removed. Written with the change itself.
 */
import { makeDomainEvent } from "../event/EventEnvelope.ts"
import type { MemberEventPayload } from "../event/EventPayload.ts"
import type { CompanyId } from "../Ids.ts"
import type { Membership } from "./Membership.ts"

/** `team.member_added` or `team.member_removed` for `membership`, in the team's company. */
export const memberEventOf = (
  type: "team.member_added" | "team.member_removed",
  membership: Membership,
  company?: CompanyId
) =>
  makeDomainEvent({
    event_type: type,
    team_nanoid: membership.team_nanoid,
    ...(company === undefined ? {} : { company_nanoid: company }),
    data: {
      relationship_nanoid: membership.nanoid,
      team_nanoid: membership.team_nanoid,
      user_nanoid: membership.user_nanoid,
      email: membership.email,
      role: membership.role,
      joined_at: membership.created_at
    } satisfies MemberEventPayload
  })
