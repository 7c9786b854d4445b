/**
 * A team's cash requirement (issue 37): every obligation due within its `cash_requirement_horizon_days` (registered
 * intents, and the instalments of its active pay schedules still payable), by due time, set against the balance of
 * its svc account. When they exceed it, `payment.cash_requirement.created` says so once for that shortfall (its id
 * comes from the team and the first obligation the balance cannot meet); when an obligation comes due and the balance
 * cannot pay it, `payment.cash_requirement.due` (once for that obligation). A deposit that covers the shortfall ends
 * it: the forecast shows none, and nothing more is announced for it.
 */
import { Clock, Effect, Option } from "effect"
import { ChainGateway } from "../chain/ChainGateway.ts"
import { uuidOf } from "../deposit/Deposit.ts"
import type { DomainEvent } from "../event/EventEnvelope.ts"
import type { CashObligation, CashRequirementEventPayload } from "../event/PayrollEventPayload.ts"
import type { EventId, TeamId } from "../Ids.ts"
import { TeamAccess } from "../membership/TeamAccess.ts"
import { amountCentsOf, type Payment } from "../payment/Payment.ts"
import { PaymentLedger } from "../payment/PaymentLedger.ts"
import { isoOf } from "../Timestamp.ts"
import { SettingsRepository } from "../team/SettingsRepository.ts"
import { type Team, teamAccountOf } from "../team/Team.ts"
import { TeamRepository } from "../team/TeamRepository.ts"
import { defaultCashRequirementHorizonDays } from "../team/TeamSettings.ts"
import type { Caller } from "../user/Caller.ts"
import { instalmentWindow } from "./Instalments.ts"
import { eventIdOfFacts, instalmentCents, type PaySchedule, scheduleEventIdOf } from "./PaySchedule.ts"
import { PayScheduleRepository } from "./PayScheduleRepository.ts"

/** One obligation, with its window in unix seconds. */
export interface Obligation {
  readonly kind: "intent" | "instalment"
  readonly nanoid: string
  readonly instalment: number | null
  readonly dueAt: number
  readonly validUntil: number
  readonly amountCents: number
}

/** A team's forecast: its obligations by due time, its balance, and what it lacks. */
export interface CashRequirement {
  readonly team_nanoid: TeamId
  readonly currency: "USD"
  readonly balance_cents: number
  readonly obligations_cents: number
  readonly shortfall_cents: number
  /** The first due time the balance cannot meet; `null` without a shortfall. */
  readonly first_unmet_at: string | null
  readonly horizon_days: number
  readonly obligations: ReadonlyArray<CashObligation>
}

/** The instalments of `schedule` due by `until` and still payable at `now`. */
export const instalmentObligations = (schedule: PaySchedule, now: number, until: number): Array<Obligation> => {
  const due: Array<Obligation> = []
  if (schedule.state !== "active") return due
  const times = { firstPayAt: schedule.first_pay_at, interval: schedule.interval, validMinutes: schedule.valid_minutes }
  for (let n = schedule.next_instalment; n < schedule.count; n++) {
    const window = instalmentWindow(times, n)
    if (window.dueAt > until) break
    if (window.validUntil < now) continue
    due.push({
      kind: "instalment",
      nanoid: schedule.nanoid,
      instalment: n,
      ...window,
      amountCents: instalmentCents(schedule)
    })
  }
  return due
}

/** The obligations in due order, and where the balance runs out: the first one it cannot meet, and by how much. */
export const forecastOf = (obligations: ReadonlyArray<Obligation>, balanceCents: number) => {
  const sorted = [...obligations].sort((a, b) => a.dueAt - b.dueAt || a.nanoid.localeCompare(b.nanoid))
  let total = 0
  let firstUnmet: Obligation | undefined
  for (const obligation of sorted) {
    total += obligation.amountCents
    if (firstUnmet === undefined && total > balanceCents) firstUnmet = obligation
  }
  return { obligations: sorted, total, shortfall: Math.max(0, total - balanceCents), firstUnmet }
}

const obligationView = (obligation: Obligation): CashObligation => ({
  kind: obligation.kind,
  nanoid: obligation.nanoid,
  instalment: obligation.instalment,
  due_at: isoOf(obligation.dueAt * 1000),
  amount_cents: obligation.amountCents
})

/** `team`'s cash requirement now: its horizon from its settings, its balance from the chain. */
export const cashRequirementOf = Effect.fn("CashRequirements.of")(function* (team: Team) {
  const now = Math.floor((yield* Clock.currentTimeMillis) / 1000)
  const settings = yield* SettingsRepository.use((repository) => repository.getTeam(team.nanoid))
  const horizonDays = Option.match(settings, {
    onNone: () => defaultCashRequirementHorizonDays,
    onSome: (s) => s.cash_requirement_horizon_days
  })
  const until = now + horizonDays * 86_400
  const account = teamAccountOf(team)
  const chain = yield* ChainGateway
  const balance = account === undefined ? 0n : yield* chain.balanceOf(account)
  const schedules = yield* PayScheduleRepository.use((repository) => repository.listTeam(team.nanoid))
  const intents = yield* PaymentLedger.use((ledger) =>
    ledger.list({ states: ["intent", "scheduled"], payer: team.nanoid })
  )
  const obligations = [
    ...schedules.flatMap((schedule) => instalmentObligations(schedule, now, until)),
    ...intents
      .map(
        (intent): Obligation => ({
          kind: "intent",
          nanoid: intent.nanoid,
          instalment: null,
          dueAt: intent.pay_at_time,
          validUntil: intent.pay_at_time + intent.valid_minutes * 60,
          amountCents: intent.amount_cents
        })
      )
      .filter((intent) => intent.dueAt <= until && intent.validUntil >= now)
  ]
  const forecast = forecastOf(obligations, amountCentsOf(balance.toString()))
  return {
    forecast,
    requirement: {
      team_nanoid: team.nanoid,
      currency: "USD",
      balance_cents: amountCentsOf(balance.toString()),
      obligations_cents: forecast.total,
      shortfall_cents: forecast.shortfall,
      first_unmet_at: forecast.firstUnmet === undefined ? null : isoOf(forecast.firstUnmet.dueAt * 1000),
      horizon_days: horizonDays,
      obligations: forecast.obligations.map(obligationView)
    } satisfies CashRequirement
  }
})

/** A cash requirement event of `team`, its id from `facts`: the same facts, the same event. */
const requirementEvent = Effect.fn("CashRequirements.event")(function* (
  kind: "payment.cash_requirement.created" | "payment.cash_requirement.due",
  team: Team,
  id: EventId,
  data: CashRequirementEventPayload
) {
  return {
    id,
    idempotency_key: uuidOf(id),
    created: Math.floor((yield* Clock.currentTimeMillis) / 1000),
    event_type: kind,
    data,
    team_nanoid: team.nanoid,
    company_nanoid: team.company_nanoid
  } as DomainEvent
})

/**
 * `payment.cash_requirement.created` for `team` when its obligations exceed its balance: once for that shortfall, its
 * id from the first obligation the balance cannot meet. No event without a shortfall.
 */
export const shortfallEvents = Effect.fn("CashRequirements.shortfallEvents")(function* (team: Team) {
  const { forecast, requirement } = yield* cashRequirementOf(team)
  const first = forecast.firstUnmet
  if (first === undefined || requirement.first_unmet_at === null) return [] as ReadonlyArray<DomainEvent>
  const id = eventIdOfFacts(`${team.nanoid}:shortfall:${first.nanoid}:${first.instalment ?? ""}:${first.dueAt}`)
  return [
    yield* requirementEvent("payment.cash_requirement.created", team, id, {
      ...requirement,
      first_unmet_at: requirement.first_unmet_at
    })
  ]
})

/** `payment.cash_requirement.due` for `obligation` of `teamId`, due and beyond the balance, under the id `id`. */
const obligationDueEvent = Effect.fn("CashRequirements.obligationDueEvent")(function* (
  teamId: TeamId,
  obligation: Obligation,
  id: EventId
) {
  const team = yield* TeamRepository.use((teams) => teams.findById(teamId))
  if (Option.isNone(team)) return [] as ReadonlyArray<DomainEvent>
  const { requirement } = yield* cashRequirementOf(team.value)
  return [
    yield* requirementEvent("payment.cash_requirement.due", team.value, id, {
      ...requirement,
      shortfall_cents: Math.max(requirement.shortfall_cents, obligation.amountCents - requirement.balance_cents),
      first_unmet_at: isoOf(obligation.dueAt * 1000),
      obligations: [obligationView(obligation)]
    })
  ]
})

/** `payment.cash_requirement.due` for instalment `n` of `schedule`, due and beyond the balance: once per instalment. */
export const instalmentDueEvent = (schedule: PaySchedule, n: number) => {
  const times = { firstPayAt: schedule.first_pay_at, interval: schedule.interval, validMinutes: schedule.valid_minutes }
  const obligation: Obligation = {
    kind: "instalment",
    nanoid: schedule.nanoid,
    instalment: n,
    ...instalmentWindow(times, n),
    amountCents: instalmentCents(schedule)
  }
  const id = scheduleEventIdOf(schedule.nanoid, "payment.cash_requirement.due", n)
  return obligationDueEvent(schedule.team_nanoid, obligation, id)
}

/** `payment.cash_requirement.due` for a registered intent, due and beyond the balance: once per intent. */
export const intentDueEvent = (payment: Payment) => {
  const obligation: Obligation = {
    kind: "intent",
    nanoid: payment.nanoid,
    instalment: null,
    dueAt: payment.pay_at_time,
    validUntil: payment.pay_at_time + payment.valid_minutes * 60,
    amountCents: payment.amount_cents
  }
  const id = eventIdOfFacts(`${payment.nanoid}:payment.cash_requirement.due`)
  return obligationDueEvent(payment.team_nanoid, obligation, id)
}

/** The cash requirement of `team` (`GET /v2/cash_requirements`, `balance.read`). */
export const getCashRequirement = Effect.fn("CashRequirements.get")(function* (caller: Caller, team: TeamId) {
  const { team: found } = yield* TeamAccess.use((access) => access.authorize(caller, team, "balance.read"))
  return (yield* cashRequirementOf(found)).requirement
})
