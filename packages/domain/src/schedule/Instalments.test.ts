/**
 * Schedule arithmetic: monthly keeps the day of the month, clamped to the month's last day, from the first pay time
 * (not from the month before), and keeps the time of day; weekly and biweekly add whole weeks.
 */
import { assert, describe, it } from "@effect/vitest"
import { addMonths, instalmentDueAt, instalmentWindow } from "./Instalments.ts"

const at = (iso: string) => Date.parse(iso) / 1000
const iso = (time: number) => new Date(time * 1000).toISOString()

describe("instalment due times", () => {
  it("monthly from Jan 31 is clamped each month, and comes back to the 31st", () => {
    const first = at("2027-01-31T09:30:00Z")
    const due = [0, 1, 2, 3, 12, 13].map((n) => iso(instalmentDueAt({ firstPayAt: first, interval: "monthly" }, n)))
    assert.deepStrictEqual(due, [
      "2027-01-31T09:30:00.000Z",
      "2027-02-28T09:30:00.000Z",
      "2027-03-31T09:30:00.000Z",
      "2027-04-30T09:30:00.000Z",
      "2028-01-31T09:30:00.000Z",
      "2028-02-29T09:30:00.000Z"
    ])
  })

  it("monthly across a year's end keeps the day", () => {
    assert.strictEqual(iso(addMonths(at("2026-11-15T00:00:00Z"), 3)), "2027-02-15T00:00:00.000Z")
    assert.strictEqual(iso(addMonths(at("2099-12-31T23:59:59Z"), 2)), "2100-02-28T23:59:59.000Z")
  })

  it("weekly and biweekly add whole weeks; the window ends validMinutes after the due time", () => {
    const first = at("2027-03-01T12:00:00Z")
    assert.strictEqual(iso(instalmentDueAt({ firstPayAt: first, interval: "weekly" }, 2)), "2027-03-15T12:00:00.000Z")
    assert.strictEqual(iso(instalmentDueAt({ firstPayAt: first, interval: "biweekly" }, 2)), "2027-03-29T12:00:00.000Z")
    assert.deepStrictEqual(instalmentWindow({ firstPayAt: first, interval: "weekly", validMinutes: 1440 }, 1), {
      dueAt: first + 7 * 86_400,
      validUntil: first + 8 * 86_400
    })
  })
})
