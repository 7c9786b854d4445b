/**
 * A chain in memory for use-case tests (`ChainGateway.layerTest`, decision 0095): accounts with owners and roles, the
 * token's balances, salts spent once, blocks with their transfers, and transactions that wait in a pool until mined.
 * What a relayer and a node do between a request and its block (a send whose answer is lost, a node that cannot be
 * reached, a block that takes its time, a reorganisation) is set by the test (`TestChain`), on `Clock`, so tests of
 * `executeOnce`, recovery and the deposit follower run without anvil, under `TestClock`. anvil stays for the
 * end-to-end tests.
 */
import { Context, Effect, Layer, Stream } from "effect"
import type { Address, Hex } from "viem"
import { ChainUnreachable } from "./ChainError.ts"
import { ChainGateway } from "./ChainGateway.ts"
import { executePaymentsOn, executeRolesOn, revokeOn, testAddresses, unreachable } from "./TestChainSend.ts"
import {
  hashOf,
  headOf,
  makeState,
  mineBlock,
  nextHash,
  reorganise,
  type TestChainBehaviour,
  type TestChainState
} from "./TestChainState.ts"

export type { TestChainBehaviour } from "./TestChainState.ts"

/** What a test does to the chain of `ChainGateway.layerTest`. */
export class TestChain extends Context.Service<
  TestChain,
  {
    /** Changes how the chain answers from now on. */
    readonly set: (behaviour: Partial<TestChainBehaviour>) => Effect.Effect<void>
    /** Mines a block (the pool's transactions in order, then the outside transfers); answers its number. */
    readonly mine: Effect.Effect<bigint>
    /** Replaces the last `depth` blocks (see `reorganise`). */
    readonly reorganise: (depth: number, options?: { readonly keepTransfers?: boolean }) => Effect.Effect<void>
    /** An outside transfer of the token to `to`, mined with the next block. */
    readonly transfer: (to: Address, amount: bigint, from?: Address) => Effect.Effect<void>
    /** Gives `wallet` the manager role `role` on `account` at once (no block), as a signed grant would. */
    readonly grant: (account: Address, role: string, wallet: Address) => Effect.Effect<void>
    /** Gives `holder` `amount` of the token at once (no block). */
    readonly fund: (holder: Address, amount: bigint) => Effect.Effect<void>
    /** Every transaction handed to the chain so far, with the salt it carries. */
    readonly sent: Effect.Effect<ReadonlyArray<{ readonly hash: Hex; readonly salt?: bigint | undefined }>>
    /** How many transactions wait to be mined. */
    readonly pending: Effect.Effect<number>
  }
>()("@svc/domain/chain/TestChain") {}

/** A read of the chain, unless it is set unreachable. */
const reading =
  (state: TestChainState) =>
  <A>(answer: () => A): Effect.Effect<A, ChainUnreachable> =>
    Effect.suspend(() => {
      const down = unreachable(state)
      return down === undefined ? Effect.succeed(answer()) : Effect.fail(down)
    })

/** The account `createAccount(owner, salt)` makes on the test chain. */
const accountOf = (owner: Address, salt: Hex): Address =>
  `0x${hashOf(`account:${owner.toLowerCase()}:${salt}`).slice(26)}` as Address

/** What the gateway reads of the chain. */
const readsOf = (state: TestChainState) => {
  const read = reading(state)
  return {
    isSaltUsed: (salt: bigint) => read(() => state.spent.has(salt)),
    settlementOfSalt: (account: Address, salt: bigint) =>
      read(() => {
        const spent = state.spent.get(salt)
        if (spent === undefined || spent.account !== account.toLowerCase()) return undefined
        const depth = headOf(state) - spent.settlement.blockNumber + 1n
        return depth >= BigInt(state.behaviour.confirmations) ? spent.settlement : undefined
      }),
    inFlightOfSalt: (salt: bigint) => Effect.sync(() => state.pending.find((pending) => pending.salt === salt)?.hash),
    intent: () => read(() => undefined),
    ownerOf: (account: Address) => read(() => state.accounts.get(account.toLowerCase())?.owner),
    hasRole: (account: Address, role: string, wallet: Address) =>
      read(() => state.accounts.get(account.toLowerCase())?.roles.get(role)?.has(wallet.toLowerCase()) === true),
    balanceOf: (holder: Address) => read(() => state.balances.get(holder.toLowerCase()) ?? 0n),
    blockNumber: read(() => headOf(state)),
    readiness: read(() => undefined),
    relayerHealth: read(() => []),
    tokenTransfers: (fromBlock: bigint, toBlock: bigint) =>
      read(() =>
        state.blocks
          .filter((block) => block.number >= fromBlock && block.number <= toBlock)
          .flatMap((block) => block.transfers)
      ),
    blockHash: (number: bigint) => read(() => state.blocks[Number(number)]?.hash)
  }
}

/** The gateway over `state`. */
const gatewayOf = (state: TestChainState, chainId: number): ChainGateway["Service"] => {
  const executePayments = executePaymentsOn(state)
  return ChainGateway.of({
    chainId,
    addresses: Effect.succeed(testAddresses),
    accountAddress: (owner, salt) => Effect.succeed(accountOf(owner, salt)),
    createAccount: (owner, salt) =>
      reading(state)(() => {
        const account = accountOf(owner, salt)
        if (state.accounts.has(account.toLowerCase())) return { account, owner }
        state.accounts.set(account.toLowerCase(), { owner, roles: new Map() })
        return { account, owner, transactionHash: nextHash(state) }
      }),
    executePayments: (signed, progress) => executePayments(signed.request, signed.request.data.payments, progress),
    executePayment: (signed, progress) => executePayments(signed.request, [signed.request.data], progress),
    executeRoles: executeRolesOn(state),
    revokeAuthority: revokeOn(state),
    executeIntent: () => Effect.fail(new ChainUnreachable({ reason: "the test chain runs no intents" })),
    releaseEscrow: () => Effect.fail(new ChainUnreachable({ reason: "the test chain holds no escrow" })),
    deposits: () => Stream.empty,
    ...readsOf(state)
  })
}

/** The in-memory chain and its controls, fresh for each layer built; `behaviour` its answers to begin with. */
export const layerTest = (
  options: Partial<TestChainBehaviour> & { readonly chainId?: number } = {}
): Layer.Layer<ChainGateway | TestChain> =>
  Layer.effectContext(
    Effect.sync(() => {
      const state = makeState(options)
      const control = TestChain.of({
        set: (behaviour) =>
          Effect.sync(() => {
            state.behaviour = { ...state.behaviour, ...behaviour }
          }),
        mine: Effect.sync(() => mineBlock(state)),
        reorganise: (depth, reorg) => Effect.sync(() => reorganise(state, depth, reorg?.keepTransfers ?? false)),
        transfer: (to, amount, from) =>
          Effect.sync(() => {
            state.incoming.push({ from: from ?? "0x00000000000000000000000000000000000be9a1", to, amount })
          }),
        grant: (account, role, wallet) =>
          Effect.sync(() => {
            const roles = state.accounts.get(account.toLowerCase())?.roles
            roles?.set(role, (roles.get(role) ?? new Set<string>()).add(wallet.toLowerCase()))
          }),
        fund: (holder, amount) =>
          Effect.sync(
            () =>
              void state.balances.set(holder.toLowerCase(), (state.balances.get(holder.toLowerCase()) ?? 0n) + amount)
          ),
        sent: Effect.sync(() => [...state.sent]),
        pending: Effect.sync(() => state.pending.length)
      })
      return Context.make(ChainGateway, gatewayOf(state, options.chainId ?? 42161)).pipe(
        Context.add(TestChain, control)
      )
    })
  )
