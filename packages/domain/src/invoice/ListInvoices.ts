/**
 * GET /v2/invoices: a team's invoices, newest first, a page at a time. The team's managers see every invoice; an
 * employee or contractor sees the ones they billed.
 */
import { Effect } from "effect"
import { TeamAccess } from "../membership/TeamAccess.ts"
import { InvalidPaymentsCursor } from "../payment/PaymentErrors.ts"
import { maxPaymentsPage } from "../payment/PaymentRequests.ts"
import type { Caller } from "../user/Caller.ts"
import type { Invoice } from "./Invoice.ts"
import { InvoiceRepository } from "./InvoiceRepository.ts"
import type { InvoicesQuery } from "./InvoiceRequests.ts"
import { liveViewOf, readsEveryInvoice } from "./InvoiceSteps.ts"

const toBase64Url = (text: string) => btoa(text).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "")

const fromBase64Url = (text: string): string => {
  try {
    return atob(text.replaceAll("-", "+").replaceAll("_", "/"))
  } catch {
    return ""
  }
}

const place = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,3})?Z)\|(iv-[0-9A-Za-z_-]{1,61})$/u

/** The cursor of the place after `invoice`: opaque to callers, its created time and nanoid. */
const cursorAfter = (invoice: Invoice) => toBase64Url(`${invoice.created_at}|${invoice.nanoid}`)

/** The place a cursor names; a cursor this list did not answer is refused (400), not read as another place. */
const placeOf = (cursor: string) => {
  const match = place.exec(fromBase64Url(cursor))
  return match === null
    ? Effect.fail(new InvalidPaymentsCursor({}))
    : Effect.succeed({ created_at: match[1] ?? "", nanoid: match[2] ?? "" })
}

/** A page of the team's invoices the caller may see (default and at most 1000), and where the next one starts. */
export const listInvoices = Effect.fn("Invoices.list")(function* (caller: Caller, query: InvoicesQuery) {
  const { membership } = yield* TeamAccess.use((access) =>
    access.authorize(caller, query.team_nanoid, "invoices.read", caller.nanoid)
  )
  const after = query.cursor === undefined ? undefined : yield* placeOf(query.cursor)
  const limit = query.limit ?? maxPaymentsPage
  const invoices = yield* InvoiceRepository.use((repository) =>
    repository.list({
      team: query.team_nanoid,
      recipient: readsEveryInvoice(membership.role) ? undefined : caller.nanoid,
      states: query.status === undefined ? [] : [query.status],
      after,
      limit: limit + 1
    })
  )
  const page = invoices.slice(0, limit)
  const last = page.at(-1)
  return {
    items: yield* Effect.forEach(page, liveViewOf, { concurrency: 8 }),
    next_cursor: invoices.length > limit && last !== undefined ? cursorAfter(last) : null
  }
})
