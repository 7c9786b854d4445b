/**
 * The payments query's cursor (docs/decisions/0039): the place of the last item answered in the query's order
 * (`created_at` descending, then nanoid descending), bound to the query's filters by a check value, in URL-safe
 * base64. It is opaque to callers; one that was edited, truncated or made for another query is refused (400), not
 * read as some other place.
 */
import { Effect } from "effect"
import { keccak256, toBytes } from "viem"
import type { Payment } from "./Payment.ts"
import { InvalidPaymentsCursor } from "./PaymentErrors.ts"
import type { PaymentsQuery } from "./PaymentRequests.ts"

/** A place in the query's order: strictly after it come older payments, or as old with a smaller nanoid. */
export interface PaymentsPosition {
  readonly created_at: string
  readonly nanoid: string
}

/** The filters a cursor is bound to, in a fixed order. */
const filtersOf = (query: PaymentsQuery) =>
  [
    query.team_nanoid,
    query.state,
    query.query_type,
    query.recipient ?? "",
    query.start_date ?? "",
    query.end_date ?? ""
  ].join(",")

/** 16 hex digits of keccak256 over the position and the filters. */
const checkOf = (position: PaymentsPosition, query: PaymentsQuery) =>
  keccak256(toBytes(`${position.created_at}|${position.nanoid}|${filtersOf(query)}`)).slice(2, 18)

const toBase64Url = (text: string) => btoa(text).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "")

const fromBase64Url = (text: string): string | undefined => {
  try {
    return atob(text.replaceAll("-", "+").replaceAll("_", "/"))
  } catch {
    return undefined
  }
}

const shape = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,3})?Z)\|(pa-[0-9A-Za-z_-]{1,40})\|([0-9a-f]{16})$/

/** The cursor of the place after `payment`, for `query`. */
export const cursorAfter = (payment: Payment, query: PaymentsQuery): string => {
  const position = { created_at: payment.created_at, nanoid: payment.nanoid }
  return toBase64Url(`${position.created_at}|${position.nanoid}|${checkOf(position, query)}`)
}

/** The place `cursor` names for `query`, or `InvalidPaymentsCursor`. */
export const positionOf = (cursor: string, query: PaymentsQuery) => {
  const match = shape.exec(fromBase64Url(cursor) ?? "")
  const position = match === null ? undefined : { created_at: match[1] ?? "", nanoid: match[2] ?? "" }
  return position !== undefined && match?.[3] === checkOf(position, query)
    ? Effect.succeed(position)
    : Effect.fail(new InvalidPaymentsCursor({}))
}
