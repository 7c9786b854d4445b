/**
 * The cash requirement's arithmetic: a schedule's obligations are its unsettled instalments due within the horizon and
 * still payable; the forecast finds the first obligation the balance cannot meet and by how much it falls short.
 */
import { assert, describe, it } from "@effect/vitest"
import type { PayScheduleId, TeamId, UserId } from "../Ids.ts"
import { forecastOf, instalmentObligations, type Obligation } from "./CashRequirements.ts"
import type { PaySchedule } from "./PaySchedule.ts"

const day = 86_400
const schedule: PaySchedule = {
  nanoid: "ps-000000000001" as PayScheduleId,
  team_nanoid: "te-000000000001" as TeamId,
  signer_nanoid: "us-000000000001" as UserId,
  signer: "0x0000000000000000000000000000000000000001",
  state: "active",
  interval: "weekly",
  first_pay_at: 1_000 * day,
  count: 4,
  valid_minutes: 1_440,
  token: "0x0000000000000000000000000000000000000009",
  token_decimals: 6,
  payees: [
    {
      recipient_nanoid: "us-000000000002" as UserId,
      recipient: "0x0000000000000000000000000000000000000002",
      amount_cents: 300,
      token_amount: "3000000",
      invoice_description: ""
    },
    {
      recipient_nanoid: "us-000000000003" as UserId,
      recipient: "0x0000000000000000000000000000000000000003",
      amount_cents: 200,
      token_amount: "2000000",
      invoice_description: ""
    }
  ],
  onchain_id: `0x${"11".repeat(32)}`,
  salt: "1",
  registration_transaction: `0x${"22".repeat(32)}`,
  registration_block: 1,
  paid_count: 1,
  missed_count: 0,
  next_instalment: 1,
  next_pay_at: 1_007 * day,
  created_at: "2026-01-01T00:00:00.000Z",
  updated_at: "2026-01-01T00:00:00.000Z"
}

describe("cash requirements", () => {
  it("a schedule owes its unsettled instalments due within the horizon, while they are payable", () => {
    const within = instalmentObligations(schedule, 1_006 * day, 1_020 * day)
    assert.deepStrictEqual(
      within.map((o) => [o.instalment, o.dueAt / day, o.amountCents]),
      [
        [1, 1_007, 500],
        [2, 1_014, 500]
      ]
    )
    // Instalment 1's day of validity ended: it is no longer owed (the runner records it missed).
    assert.deepStrictEqual(
      instalmentObligations(schedule, 1_008 * day + 1, 1_030 * day).map((o) => o.instalment),
      [2, 3]
    )
    assert.deepStrictEqual(instalmentObligations({ ...schedule, state: "canceled" }, 0, 2_000 * day), [])
  })

  it("the forecast names the first obligation the balance cannot meet, and the shortfall", () => {
    const obligation = (nanoid: string, dueAt: number, amountCents: number): Obligation => ({
      kind: "intent",
      nanoid,
      instalment: null,
      dueAt,
      validUntil: dueAt + day,
      amountCents
    })
    const obligations = [obligation("pa-c", 30, 400), obligation("pa-a", 10, 500), obligation("pa-b", 20, 300)]
    const short = forecastOf(obligations, 700)
    assert.deepStrictEqual(
      [short.obligations.map((o) => o.nanoid), short.total, short.shortfall, short.firstUnmet?.nanoid],
      [["pa-a", "pa-b", "pa-c"], 1_200, 500, "pa-b"]
    )
    const enough = forecastOf(obligations, 1_200)
    assert.deepStrictEqual([enough.shortfall, enough.firstUnmet], [0, undefined])
  })
})
