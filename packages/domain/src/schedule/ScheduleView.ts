/** A recorded pay schedule as the API shows it (`PayScheduleItem`). */
import { isoOf } from "../Timestamp.ts"
import { instalmentCents, type PaySchedule } from "./PaySchedule.ts"
import type { PayScheduleItem } from "./ScheduleRequests.ts"

/** The item of `schedule`: counts, the next due time while one is left, the payees and the signer. */
export const scheduleItemOf = (schedule: PaySchedule): PayScheduleItem => ({
  nanoid: schedule.nanoid,
  team_nanoid: schedule.team_nanoid,
  state: schedule.state,
  interval: schedule.interval,
  first_pay_at: isoOf(schedule.first_pay_at * 1000),
  count: schedule.count,
  paid_count: schedule.paid_count,
  missed_count: schedule.missed_count,
  remaining_count: schedule.state === "active" ? schedule.count - schedule.next_instalment : 0,
  next_pay_at: schedule.state === "active" && schedule.next_pay_at !== null ? isoOf(schedule.next_pay_at * 1000) : null,
  valid_minutes: schedule.valid_minutes,
  amount_cents: instalmentCents(schedule),
  currency_symbol: "USD",
  recipients: schedule.payees.map((payee) => ({
    user_nanoid: payee.recipient_nanoid,
    amount_cents: payee.amount_cents,
    invoice_description: payee.invoice_description,
    invoice_nanoid: payee.invoice_nanoid ?? null
  })),
  signer: { user_nanoid: schedule.signer_nanoid, wallet: schedule.signer },
  onchain_id: schedule.onchain_id,
  registration_transaction: schedule.registration_transaction,
  created_at: schedule.created_at,
  updated_at: schedule.updated_at
})
