/**
 * The payments query (SPEC §4.3): a team's payments matching the filters, newest first, a page of `limit` (default
 * and at most `maxPaymentsPage`) from `cursor`, and the cursor of the next page (`null` at the end).
 */
import { Clock, Effect } from "effect"
import type { Membership } from "../membership/Membership.ts"
import { InsufficientPermissions } from "../membership/MembershipErrors.ts"
import { MembershipRepository } from "../membership/MembershipRepository.ts"
import { isAllowed } from "../membership/Permission.ts"
import { TeamAccess } from "../membership/TeamAccess.ts"
import type { Team } from "../team/Team.ts"
import type { Caller } from "../user/Caller.ts"
import type { PaymentItem } from "./PaymentItem.ts"
import { paymentItemsOf } from "./PaymentItems.ts"
import { type LedgerQuery, PaymentLedger } from "./PaymentLedger.ts"
import { paymentStateFilter } from "./PaymentMachine.ts"
import { maxPaymentsPage, type PaymentsQuery } from "./PaymentRequests.ts"
import { cursorAfter, positionOf } from "./PaymentsCursor.ts"

/** A page of the payments query. */
export interface PaymentsPage {
  readonly items: ReadonlyArray<PaymentItem>
  /** Where the next page starts; `null` when this one ends the list. */
  readonly next_cursor: string | null
}

/** The first second of a `YYYY-MM-DD` day (UTC), in unix seconds. */
const dayStart = (date: string) => Math.floor(Date.parse(`${date}T00:00:00.000Z`) / 1000)

/**
 * `payable`: paid by the team. `receivable`, for a manager: paid to a current member of the team by another team; for
 * an employee or contractor: what the team paid or owes them, their invoices' payments among them (decision 0106).
 */
const sideOf = Effect.fn("Payments.sideOf")(function* (
  team: Team,
  query: PaymentsQuery,
  caller: Caller,
  role: Membership["role"]
) {
  const states = paymentStateFilter[query.state]
  if (query.query_type === "payable") {
    return {
      states,
      payer: team.nanoid,
      ...(query.recipient === undefined ? {} : { recipients: [query.recipient] })
    } satisfies LedgerQuery
  }
  if (!isAllowed(role, "payments.read")) {
    if (query.recipient !== undefined && query.recipient !== caller.nanoid) {
      return yield* new InsufficientPermissions({ message: "A member sees only what is owed to them" })
    }
    return { states, payer: team.nanoid, recipients: [caller.nanoid] } satisfies LedgerQuery
  }
  const page = yield* MembershipRepository.use((m) => m.listTeam(team.nanoid, { offset: 0, limit: undefined }))
  const members = page.members.map((m) => m.user_nanoid)
  const recipients = query.recipient === undefined ? members : members.filter((id) => id === query.recipient)
  return { states, notPayer: team.nanoid, recipients } satisfies LedgerQuery
})

/** A page of the team's payments (`payments.read`; `payments.receivable` for what is owed). */
export const queryPayments = Effect.fn("Payments.query")(function* (caller: Caller, query: PaymentsQuery) {
  const action = query.query_type === "receivable" ? "payments.receivable" : "payments.read"
  const { team, membership } = yield* TeamAccess.use((access) => access.authorize(caller, query.team_nanoid, action))
  const filter = yield* sideOf(team, query, caller, membership.role)
  const after = query.cursor === undefined ? undefined : yield* positionOf(query.cursor, query)
  const limit = query.limit ?? maxPaymentsPage
  // `scheduled` also selects intents whose time is still to come (docs/payments.md).
  const now = Math.floor((yield* Clock.currentTimeMillis) / 1000)
  // One more than the page tells whether another page follows.
  const payments = yield* PaymentLedger.use((ledger) =>
    ledger.list({
      ...filter,
      ...(query.state === "scheduled" ? { intentsDueAfter: now } : {}),
      ...(query.start_date === undefined ? {} : { createdFrom: dayStart(query.start_date) }),
      ...(query.end_date === undefined ? {} : { createdTo: dayStart(query.end_date) + 86_399 }),
      ...(after === undefined ? {} : { after }),
      limit: limit + 1
    })
  )
  const page = payments.slice(0, limit)
  const last = page.at(-1)
  return {
    items: yield* paymentItemsOf(page),
    next_cursor: payments.length > limit && last !== undefined ? cursorAfter(last, query) : null
  } satisfies PaymentsPage
})
