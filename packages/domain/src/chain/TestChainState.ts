/**
 * The state of the in-memory chain of `ChainGateway.layerTest` (`TestChain.ts`): blocks, accounts with their owners
 * and roles, token balances, spent salts, and the transactions sent and not mined yet. Plain data changed in place:
 * the test chain runs in one fiber at a time, as a test drives it.
 */
import { type Address, type Hex, keccak256, toHex } from "viem"
import type { RequestError } from "./ChainError.ts"
import type { Settlement, TokenTransfer } from "./Settlement.ts"

/** How the test chain answers (each can be changed while a test runs, `TestChain.set`). */
export interface TestChainBehaviour {
  /** `false`: every call fails `ChainUnreachable`, before anything is sent. */
  readonly reachable: boolean
  /** `auto`: a transaction is mined as it is sent; `manual`: it waits for `TestChain.mine`. */
  readonly mining: "auto" | "manual"
  /**
   * What a sender hears once its transaction is handed to the chain: its outcome (`kept`); nothing, as when the answer
   * was lost (`lost`: `SendOutcomeUnknown`, the transaction still pending); or the sending process dies (`die`: a
   * defect, as a `kill -9` right after the chain took it).
   */
  readonly answers: "kept" | "lost" | "die"
  /** How long a sender waits for its transaction's block before its outcome is unknown (ms of `Clock`). */
  readonly receiptTimeoutMillis: number
  /** How deep a settlement must be before `settlementOfSalt` answers it. */
  readonly confirmations: number
}

/** The defaults: reachable, mined at once, answers kept. */
export const defaultBehaviour: TestChainBehaviour = {
  reachable: true,
  mining: "auto",
  answers: "kept",
  receiptTimeoutMillis: 120_000,
  confirmations: 1
}

/** A transaction sent and not mined yet: what it carries, and what mining it does. */
export interface PendingTransaction {
  readonly hash: Hex
  readonly salt?: bigint | undefined
  /** Applies it at `block` (number): its settlement, or the refusal the chain meets then. */
  readonly apply: (block: bigint) => Settlement | RequestError
  /** Hears the outcome once mined. */
  readonly done: (outcome: Settlement | RequestError) => void
}

/** A mined block. */
export interface TestBlock {
  readonly number: bigint
  readonly hash: Hex
  readonly transfers: Array<TokenTransfer>
  /** Salts this block's transactions spent. */
  readonly spent: Array<bigint>
  /** What its transactions moved on the token's books (a reorganisation takes it back). */
  readonly moves: Array<{ readonly from: string; readonly to: string; readonly amount: bigint }>
}

/** An account of the forwarder: its owner (none once revoked) and the wallets holding each role. */
export interface TestAccount {
  owner: Address | undefined
  readonly roles: Map<string, Set<string>>
}

/** The chain's state. */
export interface TestChainState {
  behaviour: TestChainBehaviour
  readonly blocks: Array<TestBlock>
  readonly accounts: Map<string, TestAccount>
  readonly balances: Map<string, bigint>
  readonly spent: Map<bigint, { readonly account: string; readonly settlement: Settlement }>
  readonly pending: Array<PendingTransaction>
  /** Every transaction handed to the chain, in order, with the salt it carries. */
  readonly sent: Array<{ readonly hash: Hex; readonly salt?: bigint | undefined }>
  /** Outside transfers into accounts, mined with the next block. */
  readonly incoming: Array<{ readonly from: Address; readonly to: Address; readonly amount: bigint }>
  count: number
}

/** A fresh chain: the genesis block and nothing else. */
export const makeState = (behaviour: Partial<TestChainBehaviour>): TestChainState => ({
  behaviour: { ...defaultBehaviour, ...behaviour },
  blocks: [{ number: 0n, hash: hashOf("block:0:0"), transfers: [], spent: [], moves: [] }],
  accounts: new Map(),
  balances: new Map(),
  spent: new Map(),
  pending: [],
  sent: [],
  incoming: [],
  count: 0
})

/** A hash of `facts`. */
export const hashOf = (facts: string): Hex => keccak256(toHex(facts))

/** The next transaction hash. */
export const nextHash = (state: TestChainState): Hex => hashOf(`transaction:${++state.count}`)

/** The head's number. */
export const headOf = (state: TestChainState): bigint => BigInt(state.blocks.length - 1)

/** `amount` moved from `from` to `to` on the token's books; by a transaction of block `at`, when given. */
export const move = (state: TestChainState, from: string, to: string, amount: bigint, at?: bigint) => {
  state.balances.set(from.toLowerCase(), (state.balances.get(from.toLowerCase()) ?? 0n) - amount)
  state.balances.set(to.toLowerCase(), (state.balances.get(to.toLowerCase()) ?? 0n) + amount)
  if (at !== undefined) state.blocks[Number(at)]?.moves.push({ from, to, amount })
}

/** Mines a block: the pending transactions in order, and the incoming transfers; answers its number. */
export const mineBlock = (state: TestChainState): bigint => {
  const number = headOf(state) + 1n
  const block: TestBlock = {
    number,
    hash: hashOf(`block:${number}:${++state.count}`),
    transfers: [],
    spent: [],
    moves: []
  }
  state.blocks.push(block)
  for (const transfer of state.incoming.splice(0)) {
    state.balances.set(
      transfer.to.toLowerCase(),
      (state.balances.get(transfer.to.toLowerCase()) ?? 0n) + transfer.amount
    )
    block.transfers.push({
      ...transfer,
      transactionHash: nextHash(state),
      blockNumber: number,
      blockHash: block.hash,
      logIndex: block.transfers.length
    })
  }
  for (const transaction of state.pending.splice(0)) {
    const outcome = transaction.apply(number)
    if (!("_tag" in outcome) && transaction.salt !== undefined) block.spent.push(transaction.salt)
    transaction.done(outcome)
  }
  return number
}

/**
 * A reorganisation (or a node restored from an older state): the last `depth` blocks replaced by as many new ones (new
 * hashes). Their outside transfers are in the new blocks again when `keep`, else gone (their amounts taken back); the
 * service's transactions in them are gone, as from a chain that never had them: the salts they spent are unspent
 * again, and what they moved is taken back.
 */
export const reorganise = (state: TestChainState, depth: number, keep: boolean) => {
  const dropped = state.blocks.splice(state.blocks.length - depth, depth)
  for (const old of dropped) {
    const number = old.number
    const block: TestBlock = {
      number,
      hash: hashOf(`block:${number}:${++state.count}`),
      transfers: [],
      spent: [],
      moves: []
    }
    state.blocks.push(block)
    for (const transfer of old.transfers) {
      if (keep) block.transfers.push({ ...transfer, blockHash: block.hash })
      else move(state, transfer.to, transfer.from, transfer.amount)
    }
    for (const salt of old.spent) state.spent.delete(salt)
    for (const moved of old.moves) move(state, moved.to, moved.from, moved.amount)
  }
}
