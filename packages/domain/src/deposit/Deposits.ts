/**
 * GET /v2/deposits (DESIGN: Deposits; beyond the spec): a team's deposits, newest first, in pages as the payments
 * query pages, for the team's managers (the balance's readers).
 */
import { Effect, Option, Schema } from "effect"
import type { ChainGateway } from "../chain/ChainGateway.ts"
import { TeamId } from "../Ids.ts"
import { TeamAccess } from "../membership/TeamAccess.ts"
import { maxPaymentsPage, PaymentsPageSize } from "../payment/PaymentRequests.ts"
import type { Caller } from "../user/Caller.ts"
import { type Deposit, DepositState } from "./Deposit.ts"
import { DepositLedger } from "./DepositLedger.ts"

/** Where the next page starts: `<block>-<log index>` of the last deposit of this one. */
const DepositsCursor = Schema.String.pipe(
  Schema.check(
    Schema.isPattern(/^\d{1,15}-\d{1,9}$/u, { message: "Expected a cursor from an earlier answer's next_cursor" })
  ),
  Schema.annotate({ description: "`data.next_cursor` of the previous page" })
)

/** GET /v2/deposits query. */
export const DepositsQuery = Schema.Struct({
  team_nanoid: TeamId,
  limit: Schema.optionalKey(PaymentsPageSize),
  cursor: Schema.optionalKey(DepositsCursor)
})
export type DepositsQuery = typeof DepositsQuery.Type

/** One deposit as the route lists it. */
export const DepositItem = Schema.Struct({
  deposit_nanoid: Schema.String,
  team_nanoid: Schema.String,
  kind: Schema.Literals(["received", "transfer"]),
  amount_cents: Schema.Int,
  token_amount: Schema.String,
  from: Schema.String,
  transaction: Schema.String,
  block_number: Schema.Int,
  log_index: Schema.Int,
  /** How deep its block is now (0 without a chain to ask). */
  confirmations: Schema.Int,
  state: DepositState,
  created_at: Schema.String
})
export type DepositItem = typeof DepositItem.Type

/** GET /v2/deposits answer. */
export const DepositsResponse = Schema.Struct({
  success: Schema.Literal(true),
  data: Schema.Struct({ items: Schema.Array(DepositItem), next_cursor: Schema.NullOr(Schema.String) })
})
export type DepositsResponse = typeof DepositsResponse.Type

const itemOf = (deposit: Deposit, head: number | undefined): DepositItem => ({
  deposit_nanoid: deposit.nanoid,
  team_nanoid: deposit.team_nanoid,
  kind: deposit.kind,
  amount_cents: deposit.amount_cents,
  token_amount: deposit.token_amount,
  from: deposit.from,
  transaction: deposit.transaction,
  block_number: deposit.block_number,
  log_index: deposit.log_index,
  confirmations: head === undefined || deposit.state === "reorged" ? 0 : Math.max(0, head - deposit.block_number + 1),
  state: deposit.state,
  created_at: deposit.created_at
})

/**
 * A team's deposits, a page at a time (default and most: 1000), for the caller; `chain` (when the server has one)
 * tells how deep each is now.
 */
export const listDeposits = Effect.fn("Deposits.list")(function* (
  caller: Caller,
  query: DepositsQuery,
  chain: Option.Option<ChainGateway["Service"]>
) {
  yield* TeamAccess.use((access) => access.authorize(caller, query.team_nanoid, "balance.read"))
  const limit = query.limit === undefined ? maxPaymentsPage : Number(query.limit)
  const [block, log] = query.cursor?.split("-").map(Number) ?? []
  const after = block === undefined || log === undefined ? undefined : { block_number: block, log_index: log }
  const page = yield* DepositLedger.use((ledger) => ledger.list({ team: query.team_nanoid, after, limit: limit + 1 }))
  const head = Option.isSome(chain)
    ? yield* chain.value.blockNumber.pipe(
        Effect.map(Number),
        Effect.orElseSucceed(() => undefined)
      )
    : undefined
  const items = page.slice(0, limit).map((deposit) => itemOf(deposit, head))
  const last = items.at(-1)
  const next_cursor = page.length > limit && last !== undefined ? `${last.block_number}-${last.log_index}` : null
  return { success: true as const, data: { items, next_cursor } } satisfies DepositsResponse
})
