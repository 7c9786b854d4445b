/**
 * The events of a team's membership (SPEC §6): a member added, removed, blocked or unblocked. Written with the change
 * itself.
 */
import { makeDomainEvent } from "../event/EventEnvelope.ts"
import type { MemberBlockedEventPayload, MemberEventPayload } from "../event/EventPayload.ts"
import type { CompanyId, UserId } from "../Ids.ts"
import type { Membership } from "./Membership.ts"

const memberPayloadOf = (membership: Membership): MemberEventPayload => ({
  relationship_nanoid: membership.nanoid,
  team_nanoid: membership.team_nanoid,
  user_nanoid: membership.user_nanoid,
  email: membership.email,
  role: membership.role,
  joined_at: membership.created_at
})

const scopeOf = (membership: Membership, company: CompanyId | undefined) => ({
  team_nanoid: membership.team_nanoid,
  ...(company === undefined ? {} : { company_nanoid: company })
})

/** `team.member_added` or `team.member_removed` for `membership`, in the team's company. */
export const memberEventOf = (
  type: "team.member_added" | "team.member_removed",
  membership: Membership,
  company?: CompanyId
) => makeDomainEvent({ event_type: type, ...scopeOf(membership, company), data: memberPayloadOf(membership) })

/**
 * `team.member_blocked` for `membership` as it now stands: blocked (its block says since when and why) or unblocked
 * (no block), by `by` (`null`: the team's `block_duplicates` setting).
 */
export const blockEventOf = (membership: Membership, by: UserId | null, company?: CompanyId) =>
  makeDomainEvent({
    event_type: "team.member_blocked",
    ...scopeOf(membership, company),
    data: {
      ...memberPayloadOf(membership),
      blocked: membership.block !== undefined,
      blocked_since: membership.block?.since ?? null,
      reason: membership.block?.reason ?? "",
      changed_by: by
    } satisfies MemberBlockedEventPayload
  })
