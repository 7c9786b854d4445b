/**
 * When each instalment of a pay schedule is due, as the account computes it on chain (`SvcSchedules._dueAt`): weekly
 * and biweekly add 7 or 14 days; monthly adds whole months to the first pay time, keeping its day of the month clamped
 * to the month's last day (Jan 31, Feb 28 or 29, Mar 31) and its time of day. Times are unix seconds, UTC.
 */
import type { ScheduleInterval } from "../eip712/TypedData.ts"

const day = 86_400

/** `time` plus `months` calendar months, the day of the month clamped to that month's last day. */
export const addMonths = (time: number, months: number): number => {
  const date = new Date(time * 1000)
  const year = date.getUTCFullYear()
  const month = date.getUTCMonth() + months
  // Day 0 of the next month is this month's last day.
  const last = new Date(Date.UTC(year, month + 1, 0)).getUTCDate()
  const kept = Math.min(date.getUTCDate(), last)
  return Date.UTC(year, month, kept) / 1000 + (time % day)
}

/** What fixes a schedule's due times. */
export interface ScheduleTimes {
  readonly firstPayAt: number
  readonly interval: ScheduleInterval
  readonly validMinutes: number
}

/** When instalment `n` (from 0) is due. */
export const instalmentDueAt = (schedule: Omit<ScheduleTimes, "validMinutes">, n: number): number => {
  switch (schedule.interval) {
    case "weekly":
      return schedule.firstPayAt + n * 7 * day
    case "biweekly":
      return schedule.firstPayAt + n * 14 * day
    case "monthly":
      return addMonths(schedule.firstPayAt, n)
  }
}

/** Instalment `n`'s window: payable from `dueAt` to `validUntil`, both included, as the chain checks it. */
export const instalmentWindow = (schedule: ScheduleTimes, n: number) => {
  const dueAt = instalmentDueAt(schedule, n)
  return { dueAt, validUntil: dueAt + schedule.validMinutes * 60 }
}
