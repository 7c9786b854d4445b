/**
 * Many signed requests in one transaction (decision 0065). Requests that wait for the chain at the same time, from one
 * team or many, are carried together through the forwarder's `executeEach`, which executes each on its own: one that
 * fails (a spent salt, a balance too low) changes nothing and is reported, and the others go on. A request alone is
 * sent as itself. A single immediate payment with a 65-byte signature goes packed (`executePacked`, decision 0082): the
 * same request in a third of the calldata, read and hashed for a fraction of the gas; a batch's others go through
 * `executeEach` beside.
 *
 * A batch is simulated first (one `eth_call` of its carrier on the pending state), which answers each request's
 * outcome and gas: one that would revert is refused with its reason and nothing is sent for it, and the transaction
 * carries only the others, each with a gas cap from the simulation; the transaction's gas is what they used there and
 * a margin (`gasOf`), not the sum of their caps, so blocks fill. One call for the batch replaces an estimate per
 * request.
 *
 * The policy: a batch opens with the first request that waits, and closes once no other came for `quietMillis`
 * (10 ms), `waitMillis` (250 ms) after it opened, or at `maxRequests` (64): a lone request waits 10 ms, a burst goes
 * together. A batch is split into transactions of at most `maxGas` estimated gas, and by relayer key: requests whose
 * accounts map to different keys (the relayer's affinity) go in different transactions, so each account's order stays
 * its key's nonce order. Transactions are sent as their batch closes, without waiting for earlier ones to be mined.
 */
import { svcAccountForwarderAbi } from "@svc/contracts"
import type { ChainUnreachable, SendOutcomeUnknown, SettlementProgress } from "@svc/domain/chain"
import { Cause, Clock, Deferred, Duration, Effect, Option, Queue, type Scope } from "effect"
import {
  type Address,
  type Hash,
  type Hex,
  isAddressEqual,
  type Log,
  type PublicClient,
  parseEventLogs,
  type TransactionReceipt
} from "viem"
import { type Carrier, capOf, eachCarrier, gasOf, packedCarrier } from "./Carrier.ts"
import { readError } from "./ChainRevert.ts"
import { keyOfAffinity, type Relayer } from "./Relayer.ts"

/** How requests are gathered into transactions. */
export interface BatchOptions {
  /** A batch closes when no request came for this long (default 10 ms)... */
  readonly quietMillis?: number | undefined
  /** ...or this long after its first request (default 250 ms). */
  readonly waitMillis?: number | undefined
  /** The most requests one transaction carries (default 64). */
  readonly maxRequests?: number | undefined
  /** The most gas one transaction carries, by the requests' weights (default 10,000,000). */
  readonly maxGas?: bigint | undefined
}

/** A signed request for the forwarder. */
export interface BatchedRequest {
  /** Its calldata for the forwarder (`executePayment`, `executePayments` or `executeRoles`). */
  readonly data: Hex
  /** Its packed form for `executePacked`, when it has one (a single immediate payment: `packPayment`, `packPayments`). */
  readonly packed?: Hex | undefined
  /** A generous guess of its gas (from its entries), to split batches and bound its simulation. */
  readonly weight: bigint
  readonly salt: bigint
  /** The account it acts on (the relayer's affinity). */
  readonly account: Address
  /** What it carries, for the journal. */
  readonly carries: ReadonlyArray<string>
  readonly progress?: SettlementProgress | undefined
}

/**
 * What became of a request: refused by the simulation with its revert data (nothing sent), or carried by a
 * transaction, with its receipt and whether it executed there.
 */
export type Carried =
  | { readonly _tag: "Refused"; readonly reason: Hex }
  | { readonly _tag: "Mined"; readonly receipt: TransactionReceipt; readonly executed: boolean }

/** Gathers requests into transactions and sees each through to its receipt. */
export interface RequestBatcher {
  /**
   * Carries `request` with the others waiting: `ChainUnreachable` when nothing was sent for it, `SendOutcomeUnknown`
   * when its transaction was sent and its outcome is not known.
   */
  readonly carry: (request: BatchedRequest) => Effect.Effect<Carried, ChainUnreachable | SendOutcomeUnknown>
}

interface Waiting {
  readonly request: BatchedRequest
  readonly done: Deferred.Deferred<Carried, ChainUnreachable | SendOutcomeUnknown>
}

/** Each executed request's logs in a receipt, by salt: computed once a receipt (a batch's is read by each request). */
const requestLogs = new WeakMap<TransactionReceipt, Map<bigint, ReadonlyArray<Log>>>()

/**
 * The logs of the request of `salt` that `receipt`'s transaction executed on `forwarder`: those after its
 * `RequestExecuted` and before the forwarder's next log; `undefined` when it did not execute there.
 */
export const logsOfRequest = (
  receipt: TransactionReceipt,
  forwarder: Address,
  salt: bigint
): ReadonlyArray<Log> | undefined => {
  let bySalt = requestLogs.get(receipt)
  if (bySalt === undefined) {
    bySalt = new Map()
    let open: { readonly salt: bigint; readonly start: number } | undefined
    const close = (end: number) => {
      if (open !== undefined) bySalt?.set(open.salt, receipt.logs.slice(open.start + 1, end))
      open = undefined
    }
    for (const [index, log] of receipt.logs.entries()) {
      if (!isAddressEqual(log.address, forwarder)) continue
      close(index)
      const [parsed] = parseEventLogs({ abi: svcAccountForwarderAbi, eventName: "RequestExecuted", logs: [log] })
      if (parsed !== undefined) open = { salt: parsed.args.salt, start: index }
    }
    close(receipt.logs.length)
    requestLogs.set(receipt, bySalt)
  }
  return bySalt.get(salt)
}

/** A request the simulation let through, with the gas it used there. */
type Going = Waiting & { readonly gasUsed: bigint }

/** Where a batcher sends, and how it gathers. */
interface Batching {
  readonly client: PublicClient
  readonly relayer: Relayer
  readonly forwarder: Address
  readonly quietMillis: number
  readonly waitMillis: number
  readonly maxRequests: number
  readonly maxGas: bigint
  readonly queue: Queue.Queue<Waiting>
}

/**
 * Each request notes its transaction (a write of its own): all at once, so a store that commits waiting writes
 * together (jongodb, decision 0062) takes them in one commit rather than one after the other.
 */
const heard = (group: ReadonlyArray<Waiting>, hash: Hash) =>
  Effect.forEach(group, ({ request }) => request.progress?.onSent?.(hash) ?? Effect.void, {
    concurrency: "unbounded",
    discard: true
  })

/** Each request's outcome and gas on the pending state, read without sending anything. */
const simulate = (batching: Batching, carrier: Carrier, requests: ReadonlyArray<BatchedRequest>) =>
  Effect.tryPromise({
    try: () =>
      batching.client.call({
        account: batching.relayer.address,
        to: batching.forwarder,
        data: carrier.encode(
          requests.map((request) => ({ data: request.data, packed: request.packed, gas: 4n * request.weight }))
        ),
        blockTag: "pending"
      }),
    catch: readError
  }).pipe(Effect.map(({ data }) => carrier.decode(data ?? "0x")))

/** Sends what the simulation let through in one transaction (alone, a request is sent as itself); answers each. */
const sendGoing = (batching: Batching, carrier: Carrier, going: ReadonlyArray<Going>) =>
  Effect.gen(function* () {
    const [first] = going
    if (first === undefined) return
    const { relayer, forwarder } = batching
    const alone = going.length === 1
    const data = alone
      ? first.request.data
      : carrier.encode(
          going.map(({ gasUsed, request }) => ({ data: request.data, packed: request.packed, gas: capOf(gasUsed) }))
        )
    const hash = yield* relayer.send({
      to: forwarder,
      data,
      gas: gasOf(
        going.map(({ gasUsed }) => gasUsed),
        data,
        alone ? undefined : carrier
      ),
      carries: alone
        ? first.request.carries
        : [carrier.functionName, ...going.flatMap(({ request }) => request.carries)],
      affinity: first.request.account
    })
    yield* heard(going, hash)
    const receipt = yield* relayer.receipt(hash, (version) => heard(going, version))
    for (const { request, done } of going) {
      const executed =
        receipt.status === "success" && (alone || logsOfRequest(receipt, forwarder, request.salt) !== undefined)
      yield* Deferred.succeed(done, { _tag: "Mined", receipt, executed })
    }
  })

/**
 * Simulates `group` (one key's requests, carried by `carrier`), refuses what would revert, sends the rest in one
 * transaction, answers each.
 */
const carryGroup = (batching: Batching, carrier: Carrier, group: ReadonlyArray<Waiting>) =>
  Effect.gen(function* () {
    const results = yield* simulate(
      batching,
      carrier,
      group.map((waiting) => waiting.request)
    )
    const going: Array<Going> = []
    for (const [index, waiting] of group.entries()) {
      const result = results[index]
      if (result?.ok === true) going.push({ ...waiting, gasUsed: result.gasUsed })
      else yield* Deferred.succeed(waiting.done, { _tag: "Refused", reason: result?.reason ?? "0x" })
    }
    yield* sendGoing(batching, carrier, going)
  }).pipe(
    // Whatever ended it, no request is left waiting (those answered already keep their answer).
    Effect.onExit((exit) =>
      exit._tag === "Success"
        ? Effect.void
        : Effect.forEach(group, ({ done }) => Deferred.failCause(done, exit.cause), { discard: true })
    ),
    Effect.ignore
  )

/**
 * Carries `group` (one key's): its packed requests in one transaction of `executePacked` when there are several, and
 * the others in one of `executeEach`, side by side.
 */
const send = (batching: Batching, group: ReadonlyArray<Waiting>) => {
  const packed = group.filter(({ request }) => request.packed !== undefined)
  if (packed.length < 2) return carryGroup(batching, eachCarrier, group)
  const others = group.filter(({ request }) => request.packed === undefined)
  return Effect.all(
    [
      carryGroup(batching, packedCarrier, packed),
      ...(others.length > 0 ? [carryGroup(batching, eachCarrier, others)] : [])
    ],
    { concurrency: "unbounded", discard: true }
  )
}

/** Splits what waits into transactions: by relayer key, then by count and gas. */
const groupsOf = (batching: Batching, waiting: ReadonlyArray<Waiting>) => {
  const byKey = new Map<string, Array<{ entries: Array<Waiting>; weight: bigint }>>()
  for (const entry of waiting) {
    const key = keyOfAffinity(entry.request.account, batching.relayer.addresses).toLowerCase()
    const groups = byKey.get(key) ?? []
    byKey.set(key, groups)
    const open = groups.at(-1)
    if (
      open !== undefined &&
      open.entries.length < batching.maxRequests &&
      open.weight + entry.request.weight <= batching.maxGas
    ) {
      open.entries.push(entry)
      open.weight += entry.request.weight
    } else groups.push({ entries: [entry], weight: entry.request.weight })
  }
  return [...byKey.values()].flat().map((group) => group.entries)
}

/** Whatever waits now, without waiting for more. */
const waitingNow = (queue: Queue.Queue<Waiting>) =>
  Effect.gen(function* () {
    const taken: Array<Waiting> = []
    while (true) {
      const next = yield* Queue.poll(queue)
      if (Option.isNone(next)) return taken
      taken.push(next.value)
    }
  })

/** A batch: from the first request, while more keep coming (each within `quietMillis`), `waitMillis` at most. */
const gather = (batching: Batching) =>
  Effect.gen(function* () {
    const batch = [yield* Queue.take(batching.queue)]
    const closes = (yield* Clock.currentTimeMillis) + batching.waitMillis
    while (batch.length < batching.maxRequests) {
      const left = closes - (yield* Clock.currentTimeMillis)
      if (left <= 0) break
      yield* Effect.sleep(Duration.millis(Math.min(batching.quietMillis, left)))
      const more = yield* waitingNow(batching.queue)
      if (more.length === 0) break
      batch.push(...more)
    }
    return batch
  })

/** A batcher sending through `relayer` to `forwarder` on `client`'s chain; it runs for the scope's lifetime. */
export const makeRequestBatcher: (
  client: PublicClient,
  relayer: Relayer,
  forwarder: Address,
  options?: BatchOptions
) => Effect.Effect<RequestBatcher, never, Scope.Scope> = Effect.fnUntraced(function* (
  client: PublicClient,
  relayer: Relayer,
  forwarder: Address,
  options: BatchOptions = {}
): Effect.fn.Return<RequestBatcher, never, Scope.Scope> {
  const scope = yield* Effect.scope
  const queue = yield* Queue.unbounded<Waiting>()
  const batching: Batching = {
    client,
    relayer,
    forwarder,
    quietMillis: Math.max(1, options.quietMillis ?? 10),
    waitMillis: options.waitMillis ?? 250,
    maxRequests: Math.max(1, options.maxRequests ?? 64),
    maxGas: options.maxGas ?? 10_000_000n,
    queue
  }
  yield* Effect.gen(function* () {
    while (true) {
      for (const group of groupsOf(batching, yield* gather(batching)))
        yield* Effect.forkIn(send(batching, group), scope)
    }
  }).pipe(
    Effect.onExit(() =>
      Effect.flatMap(waitingNow(queue), (left) =>
        Effect.forEach(left, ({ done }) => Deferred.failCause(done, Cause.interrupt()), { discard: true })
      )
    ),
    Effect.forkIn(scope)
  )
  const carry = (request: BatchedRequest) =>
    Effect.gen(function* () {
      const done = yield* Deferred.make<Carried, ChainUnreachable | SendOutcomeUnknown>()
      yield* Queue.offer(queue, { request, done })
      return yield* Deferred.await(done)
    })
  return { carry } satisfies RequestBatcher
})
