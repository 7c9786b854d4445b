/**
 * The deposit follower (decision 0064): reads the settlement token's `Transfer` logs block by block from a stored
 * cursor, records those into a team's account as deposits, and announces each once it is `confirmations` deep:
 * `deposit.received` from outside, `token.transfer` from another team's account. One follower at a time across
 * processes, on the ledger's lease. A reorg under the cursor moves it back by the reorg window and reads again; a
 * pending deposit no longer on the canonical chain is dropped without an event, and a confirmed one within the window
 * is withdrawn with `deposit.received` of status `reverted`. Every write names the follower's fencing token: a
 * follower paused past its lease changes nothing once another took over (decision 0090).
 */
import { Clock, DateTime, Duration, Effect, Layer, Option, Ref } from "effect"
import type { Hex } from "viem"
import { type BlockCursor, checkCursor } from "../chain/BlockCursor.ts"
import { ChainGateway } from "../chain/ChainGateway.ts"
import type { TokenTransfer } from "../chain/Settlement.ts"
import type { DepositEventPayload, TokenTransferEventPayload } from "../event/DepositEventPayload.ts"
import type { DomainEvent } from "../event/EventEnvelope.ts"
import type { TeamId } from "../Ids.ts"
import type { FencingToken } from "../Lease.ts"
import { tokenInfo } from "../payment/PaymentEvents.ts"
import type { Team } from "../team/Team.ts"
import { TeamRepository } from "../team/TeamRepository.ts"
import { withEvents } from "../UnitOfWork.ts"
import { repeatQuietly } from "../Worker.ts"
import { centsOfUnits, type Deposit, depositEventIdOf, depositIdOf, uuidOf } from "./Deposit.ts"
import { DepositLedger } from "./DepositLedger.ts"

/** How the follower reads. */
export interface FollowerOptions {
  /** How deep a deposit's block must be before it is announced (`CHAIN_CONFIRMATIONS`). */
  readonly confirmations: number
  /** How many blocks back a reorg is looked for, and confirmed deposits checked (default 64). */
  readonly reorgWindow?: number | undefined
  /** At most this many blocks per read (default 5,000). */
  readonly batchBlocks?: number | undefined
  /** The first block to read when the follower has no cursor yet (default: the chain's head then, included). */
  readonly startBlock?: number | undefined
}

/** The follower's name in the ledger. */
export const followerName = "deposits"

/** How long one pass holds the follower's lease. */
const leaseMillis = 30_000

/** The events that announce (`received`, `transfer`) or withdraw (`reverted`) a deposit. */
const eventsOf = (
  chainId: number,
  deposit: Deposit,
  team: Team | undefined,
  status: "complete" | "reverted",
  confirmations: number,
  created: number
): ReadonlyArray<DomainEvent> => {
  const facts = {
    network: chainId === 42161 ? "arbitrum" : `chain-${chainId}`,
    chain_id: chainId,
    transaction_hash: deposit.transaction,
    block_number: deposit.block_number,
    log_index: deposit.log_index,
    confirmations
  }
  const transfer = deposit.kind === "transfer" && status === "complete"
  const data = transfer
    ? ({
        nanoid: deposit.nanoid,
        team_nanoid: deposit.team_nanoid,
        from: deposit.from,
        to: deposit.to,
        amount_cents: deposit.amount_cents,
        token_amount: deposit.token_amount,
        token: tokenInfo,
        ...facts
      } satisfies TokenTransferEventPayload)
    : ({
        nanoid: deposit.nanoid,
        entity_nanoid: deposit.team_nanoid,
        kind: deposit.kind,
        source_currency: "USDC",
        source_amount_cents: deposit.amount_cents,
        destination_currency: "USDC",
        destination_amount_cents: deposit.amount_cents,
        token_amount: deposit.token_amount,
        transaction_date: deposit.created_at,
        status,
        from: deposit.from,
        token: tokenInfo,
        ...facts
      } satisfies DepositEventPayload)
  const kind = transfer ? "transfer" : status === "complete" ? "received" : "reverted"
  const id = depositEventIdOf(deposit.nanoid, kind)
  return [
    {
      id,
      idempotency_key: uuidOf(`${deposit.nanoid}:${kind}`),
      created,
      event_type: transfer ? "token.transfer" : "deposit.received",
      data,
      team_nanoid: deposit.team_nanoid,
      ...(team === undefined ? {} : { company_nanoid: team.company_nanoid })
    } as DomainEvent
  ]
}

/** The deposits among `transfers`: those into a team's account (from another team's: a transfer between them). */
const depositsOf = Effect.fn("DepositFollower.depositsOf")(function* (
  chainId: number,
  transfers: ReadonlyArray<TokenTransfer>,
  now: string
) {
  if (transfers.length === 0) return []
  const accounts = [...new Set(transfers.flatMap((transfer) => [transfer.to, transfer.from]))]
  const teams = yield* TeamRepository.use((repository) => repository.findByAccounts(accounts))
  const teamOf = new Map(teams.map((team) => [team.svc_account.toLowerCase(), team.nanoid]))
  return transfers.flatMap((transfer): ReadonlyArray<Deposit> => {
    const team = teamOf.get(transfer.to.toLowerCase())
    if (team === undefined) return []
    return [
      {
        nanoid: depositIdOf(chainId, transfer.transactionHash, transfer.logIndex),
        team_nanoid: team as TeamId,
        kind: teamOf.has(transfer.from.toLowerCase()) ? "transfer" : "received",
        amount_cents: centsOfUnits(transfer.amount),
        token_amount: transfer.amount.toString(),
        from: transfer.from,
        to: transfer.to,
        transaction: transfer.transactionHash,
        block_number: Number(transfer.blockNumber),
        block_hash: transfer.blockHash,
        log_index: transfer.logIndex,
        state: "pending",
        created_at: now,
        updated_at: now
      }
    ]
  })
})

/** What one pass did. */
export interface FollowPass {
  /** Whether this process held the follower. */
  readonly followed: boolean
  /** The follower's fencing token this pass held, kept for the next pass (a renewal). */
  readonly token?: FencingToken | undefined
  /** The cursor after the pass. */
  readonly cursor?: BlockCursor | undefined
  /** Blocks read in this pass. */
  readonly blocks: number
  readonly confirmed: number
  readonly reorged: number
}

/**
 * One pass: take the follower, notice a reorg under the cursor, read up to `batchBlocks` new blocks (repeating while
 * behind, within the lease), then confirm or withdraw what is within the reorg window.
 */
export const followOnce = Effect.fn("DepositFollower.followOnce")(function* (
  options: FollowerOptions,
  held?: FencingToken | undefined
) {
  const ledger = yield* DepositLedger
  const chain = yield* ChainGateway
  const window = options.reorgWindow ?? 64
  const batch = options.batchBlocks ?? 5_000
  const started = yield* Clock.currentTimeMillis
  const follower = yield* ledger.follow(followerName, held, started, started + leaseMillis)
  if (Option.isNone(follower)) return { followed: false, blocks: 0, confirmed: 0, reorged: 0 } satisfies FollowPass
  const { token } = follower.value.lease
  const head = Number(yield* chain.blockNumber)
  const hashAt = (block: number) => (block < 0 ? Effect.succeed(undefined) : chain.blockHash(BigInt(block)))
  const stored: BlockCursor = Option.getOrElse(follower.value.cursor, () => ({
    block: (options.startBlock ?? head) - 1,
    hash: ""
  }))
  // A reorg under the cursor: read the window again (deposits found again keep their ids).
  const check = yield* checkCursor(stored, head, hashAt, window)
  let cursor = check.cursor
  if (check.reorged) yield* ledger.advance(followerName, token, cursor, [])
  let blocks = 0
  while (cursor.block < head && (yield* Clock.currentTimeMillis) < started + leaseMillis / 2) {
    const to = Math.min(head, cursor.block + batch)
    const transfers = yield* chain.tokenTransfers(BigInt(cursor.block + 1), BigInt(to))
    const now = DateTime.formatIso(yield* DateTime.now)
    const deposits = yield* depositsOf(chain.chainId, transfers, now)
    const next: BlockCursor = { block: to, hash: (yield* hashAt(to)) ?? "" }
    if (!(yield* ledger.advance(followerName, token, next, deposits))) break
    blocks += to - cursor.block
    cursor = next
  }
  // Announce what is deep enough, drop or withdraw what left the canonical chain.
  let confirmed = 0
  let reorged = 0
  const canonical = new Map<number, Hex>()
  for (const deposit of yield* ledger.withinReorgWindow(head - window)) {
    const hash = canonical.get(deposit.block_number) ?? (yield* hashAt(deposit.block_number)) ?? ("" as Hex)
    canonical.set(deposit.block_number, hash)
    const onChain = hash === deposit.block_hash
    const depth = head - deposit.block_number + 1
    // Most of these deposits stay as they are in a pass: nothing is read for them beyond their block's hash.
    const confirm = deposit.state === "pending" && onChain && depth >= options.confirmations
    const withdraw = deposit.state === "confirmed" && !onChain
    const drop = deposit.state === "pending" && !onChain
    if (!confirm && !withdraw && !drop) continue
    const now = DateTime.formatIso(yield* DateTime.now)
    const move = (from: Deposit["state"], to: Deposit["state"]) =>
      ledger.transition(deposit.nanoid, { from, to, updatedAt: now, follower: followerName, token })
    if (drop) {
      if (yield* move("pending", "reorged")) reorged++
      continue
    }
    const created = Math.floor((yield* Clock.currentTimeMillis) / 1000)
    const team = Option.getOrUndefined(yield* TeamRepository.use((teams) => teams.findById(deposit.team_nanoid)))
    const events = eventsOf(chain.chainId, deposit, team, confirm ? "complete" : "reverted", depth, created)
    const moved = yield* withEvents(confirm ? move("pending", "confirmed") : move("confirmed", "reorged"), (changed) =>
      changed ? events : []
    )
    if (moved && confirm) confirmed++
    else if (moved) reorged++
  }
  return { followed: true, token, cursor, blocks, confirmed, reorged } satisfies FollowPass
})

/**
 * The follower, a pass every `every` (default 1 s), for the lifetime of the layer's scope: each pass renews the lease
 * the last one held, and the follower is given up on the way out.
 */
export const layer = (options: FollowerOptions & { readonly every?: Duration.Input }) =>
  Layer.effectDiscard(
    Effect.gen(function* () {
      const held = yield* Ref.make<FencingToken | undefined>(undefined)
      yield* Effect.addFinalizer(() =>
        Effect.flatMap(Ref.get(held), (token) =>
          token === undefined ? Effect.void : DepositLedger.use((ledger) => ledger.unfollow(followerName, token))
        ).pipe(Effect.ignore)
      )
      const pass = Effect.flatMap(Ref.get(held), (token) =>
        Effect.tap(followOnce(options, token), (done) => Ref.set(held, done.token))
      )
      yield* repeatQuietly("deposit follower", pass, { every: options.every ?? Duration.seconds(1) }).pipe(
        Effect.forkScoped
      )
    })
  )
