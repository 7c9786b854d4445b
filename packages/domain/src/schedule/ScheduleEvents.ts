/**
 * The events pay schedules publish (issue 37): `payment.subscription.created` once registered,
 * `payment.subscription.paid` for each instalment paid, `payment.canceled` once canceled. Their ids and idempotency
 * keys come from the schedule and the instalment, so a replay or a second process announces nothing twice (the
 * outbox keeps one event per id).
 */
import { Clock, Effect } from "effect"
import { uuidOf } from "../deposit/Deposit.ts"
import type { DomainEvent } from "../event/EventEnvelope.ts"
import type { ChainFacts } from "../event/EventPayload.ts"
import type { SubscriptionEventPayload } from "../event/PayrollEventPayload.ts"
import type { PaymentId } from "../Ids.ts"
import { tokenInfo } from "../payment/PaymentEvents.ts"
import { isoOf } from "../Timestamp.ts"
import { TeamRepository } from "../team/TeamRepository.ts"
import { displayNameOf } from "../user/User.ts"
import { UserRepository } from "../user/UserRepository.ts"
import { instalmentDueAt } from "./Instalments.ts"
import { instalmentCents, type PaySchedule, scheduleEventIdOf } from "./PaySchedule.ts"

/** Why a schedule was canceled. */
export type CancelReason = NonNullable<SubscriptionEventPayload["cancel_reason"]>

/** What an event says of one schedule, beyond the schedule itself. */
export interface ScheduleEventFacts {
  readonly instalment?: { readonly n: number; readonly payments: ReadonlyArray<PaymentId> } | undefined
  readonly cancelReason?: CancelReason | undefined
  readonly chain?: ChainFacts | null | undefined
}

/** The `subscription` payload of `schedule`, its payees named from their profiles. */
export const subscriptionPayloadOf = Effect.fn("ScheduleEvents.payloadOf")(function* (
  schedule: PaySchedule,
  facts: ScheduleEventFacts = {}
) {
  const users = new Map(
    (yield* UserRepository.use((u) => u.findByIds(schedule.payees.map((p) => p.recipient_nanoid)))).map((u) => [
      u.nanoid,
      u
    ])
  )
  const times = { firstPayAt: schedule.first_pay_at, interval: schedule.interval }
  return {
    object: "pay_schedule",
    nanoid: schedule.nanoid,
    team_nanoid: schedule.team_nanoid,
    onchain_id: schedule.onchain_id,
    state: schedule.state,
    interval: schedule.interval,
    first_pay_at: isoOf(schedule.first_pay_at * 1000),
    count: schedule.count,
    paid_count: schedule.paid_count,
    remaining_count: schedule.state === "active" ? schedule.count - schedule.next_instalment : 0,
    next_pay_at:
      schedule.state === "active" && schedule.next_pay_at !== null ? isoOf(schedule.next_pay_at * 1000) : null,
    amount_cents: instalmentCents(schedule),
    currency: "USD",
    token: { address: schedule.token, ...tokenInfo },
    recipients: schedule.payees.map((payee) => {
      const user = users.get(payee.recipient_nanoid)
      return {
        nanoid: payee.recipient_nanoid,
        email: user?.email ?? "",
        name: user === undefined ? "" : displayNameOf(user),
        amount_cents: payee.amount_cents,
        invoice_nanoid: payee.invoice_nanoid ?? null
      }
    }),
    signer: { nanoid: schedule.signer_nanoid, wallet: schedule.signer },
    instalment:
      facts.instalment === undefined
        ? null
        : {
            n: facts.instalment.n,
            due_at: isoOf(instalmentDueAt(times, facts.instalment.n) * 1000),
            amount_cents: instalmentCents(schedule),
            payments: facts.instalment.payments
          },
    cancel_reason: facts.cancelReason ?? null,
    chain: facts.chain ?? null
  } satisfies SubscriptionEventPayload
})

/**
 * The event `kind` of `schedule`, its id and idempotency key from the schedule (and the instalment, for `.paid`): the
 * same facts, the same event.
 */
export const scheduleEventOf = Effect.fn("ScheduleEvents.eventOf")(function* (
  kind: "payment.subscription.created" | "payment.subscription.paid" | "payment.canceled",
  schedule: PaySchedule,
  facts: ScheduleEventFacts = {}
) {
  const team = yield* TeamRepository.use((teams) => teams.findById(schedule.team_nanoid))
  const n = facts.instalment?.n
  return {
    id: scheduleEventIdOf(schedule.nanoid, kind, n),
    idempotency_key: uuidOf(`${schedule.nanoid}:${kind}:${n ?? ""}`),
    created: Math.floor((yield* Clock.currentTimeMillis) / 1000),
    event_type: kind,
    data: yield* subscriptionPayloadOf(schedule, facts),
    team_nanoid: schedule.team_nanoid,
    ...(team._tag === "Some" ? { company_nanoid: team.value.company_nanoid } : {})
  } as DomainEvent
})
