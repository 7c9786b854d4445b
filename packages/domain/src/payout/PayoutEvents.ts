/**
 * The events of payout addresses (decisions 0108 and 0109), one per team concerned: `withdraw_account.updated` to each
 * team of a member whose payout address changed, and `withdraw_account.duplicated_detected` to each team of both users
 * of a duplicate pair.
 */
import { Effect } from "effect"
import { makeDomainEvent } from "../event/EventEnvelope.ts"
import type { DuplicateAccountEventPayload, WithdrawAccountEventPayload } from "../event/EventPayload.ts"
import type { UserId } from "../Ids.ts"
import { MembershipRepository } from "../membership/MembershipRepository.ts"
import { TeamRepository } from "../team/TeamRepository.ts"
import type { DuplicatePair } from "./DuplicateAccounts.ts"
import type { PayoutChange } from "./PayoutAddress.ts"

/** The active teams of `users`, each once, with their company. */
const teamsOf = Effect.fn("PayoutEvents.teamsOf")(function* (users: ReadonlyArray<UserId>) {
  const memberships = yield* Effect.forEach(users, (user) => MembershipRepository.use((m) => m.listByUser(user)))
  const ids = [...new Set(memberships.flat().map((m) => m.team_nanoid))]
  const teams = yield* TeamRepository.use((t) => t.findByIds(ids))
  return teams.filter((team) => team.status === "active")
})

/** `withdraw_account.updated` for `change` (`set`) or its report (`reported`), one per team of its user. */
export const payoutChangeEventsOf = Effect.fn("PayoutEvents.changeEvents")(function* (
  change: PayoutChange,
  kind: "set" | "reported",
  at: string
) {
  const data: WithdrawAccountEventPayload = {
    nanoid: change.nanoid,
    user_nanoid: change.user_nanoid,
    address: kind === "set" ? change.address : change.previous_address,
    previous_address: kind === "set" ? change.previous_address : change.address,
    change: kind,
    changed_at: at
  }
  const teams = yield* teamsOf([change.user_nanoid])
  return yield* Effect.forEach(teams, (team) =>
    makeDomainEvent({
      event_type: "withdraw_account.updated",
      team_nanoid: team.nanoid,
      company_nanoid: team.company_nanoid,
      data
    })
  )
})

/** `withdraw_account.duplicated_detected` for `pair`, one per team of either user. */
export const duplicateEventsOf = Effect.fn("PayoutEvents.duplicateEvents")(function* (pair: DuplicatePair) {
  const data: DuplicateAccountEventPayload = {
    address: pair.address,
    user_nanoids: [pair.older, pair.newer],
    newer_user_nanoid: pair.newer,
    detected_at: pair.detected_at
  }
  const teams = yield* teamsOf([pair.older, pair.newer])
  return yield* Effect.forEach(teams, (team) =>
    makeDomainEvent({
      event_type: "withdraw_account.duplicated_detected",
      team_nanoid: team.nanoid,
      company_nanoid: team.company_nanoid,
      data
    })
  )
})
