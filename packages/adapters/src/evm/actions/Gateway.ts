/**
 * What every action of the viem gateway acts on (viem's style: an action is a function of the client and its
 * parameters): the node's client, the relayer that sends and pays, the batcher that carries signed requests together,
 * and the suite's addresses; with the helpers they share to read, estimate, send and read back a settlement.
 */
import { svcAccountAbi, svcAccountForwarderAbi, svcEscrowAbi } from "@svc/contracts"
import {
  type ChainUnreachable,
  type PaymentOutcome,
  type Settlement,
  type SettlementProgress,
  SettlementReverted,
  type SuiteAddresses
} from "@svc/domain/chain"
import { Effect, type Scope } from "effect"
import {
  type Abi,
  type Address,
  ContractFunctionRevertedError,
  encodeFunctionData,
  type Hex,
  isAddressEqual,
  type Log,
  type PublicClient,
  parseEventLogs,
  type TransactionReceipt
} from "viem"
import { readError, suiteErrorsAbi } from "../ChainRevert.ts"
import type { Relayer } from "../Relayer.ts"
import { type BatchOptions, logsOfRequest, makeRequestBatcher, type RequestBatcher } from "../RequestBatcher.ts"

/** What the actions act on. */
export interface Gateway {
  readonly client: PublicClient
  readonly relayer: Relayer
  /** Carries signed requests waiting at the same time together; none sends each alone (`maxRequests: 1`). */
  readonly batcher: RequestBatcher | undefined
  readonly addresses: SuiteAddresses
  readonly chainId: number
}

/**
 * The gateway on a client and a relayer for a deployed suite: its chain asked of the node, and signed requests waiting
 * at the same time sharing transactions (`batch`, decision 0065) unless `maxRequests` is 1, which sends each request as
 * its own transaction, estimated alone (the benchmarks' baseline).
 */
export const makeGateway: (
  client: PublicClient,
  relayer: Relayer,
  addresses: SuiteAddresses,
  batch?: BatchOptions | undefined
) => Effect.Effect<Gateway, ChainUnreachable, Scope.Scope> = Effect.fnUntraced(function* (
  client: PublicClient,
  relayer: Relayer,
  addresses: SuiteAddresses,
  batch?: BatchOptions | undefined
) {
  const chainId = yield* Effect.tryPromise({ try: () => client.getChainId(), catch: readError })
  const batcher =
    batch?.maxRequests === 1 ? undefined : yield* makeRequestBatcher(client, relayer, addresses.forwarder, batch)
  return { client, relayer, batcher, addresses, chainId } satisfies Gateway
})

/** A call of a contract function. */
export interface ContractCall {
  readonly address: Address
  readonly abi: Abi
  readonly functionName: string
  readonly args: ReadonlyArray<unknown>
}

export const forwarderAbi: Abi = [...svcAccountForwarderAbi, ...suiteErrorsAbi]
export const accountAbi: Abi = [...svcAccountAbi, ...suiteErrorsAbi]
export const escrowAbi: Abi = [...svcEscrowAbi, ...suiteErrorsAbi]

/** Where the forwarder's typed data is signed for. */
export const locationOf = (gateway: Gateway) => ({
  chainId: gateway.chainId,
  verifyingContract: gateway.addresses.forwarder
})

/** A read of a contract, failing as the node's unavailability. */
export const read = <A>(gateway: Gateway, call: ContractCall) =>
  Effect.tryPromise({ try: () => gateway.client.readContract(call as never) as Promise<A>, catch: readError })

/** The gas of `call` from the relayer; a refusal is named by `toError`. */
export const estimateOf = <E>(gateway: Gateway, call: ContractCall, toError: (error: unknown) => E) =>
  Effect.tryPromise({
    try: () => gateway.client.estimateContractGas({ ...call, account: gateway.relayer.address } as never),
    catch: toError
  })

/**
 * Estimates (which names any refusal without spending gas), sends through the relayer, waits for inclusion of
 * whichever version of the transaction the relayer's monitor gets mined. `carries` labels it in the journal.
 */
export const submit = <E>(
  gateway: Gateway,
  call: ContractCall,
  toError: (error: unknown) => E,
  carries: ReadonlyArray<string> = [],
  affinity?: Address,
  progress?: SettlementProgress
) => {
  const estimate = estimateOf(gateway, call, toError)
  return Effect.gen(function* () {
    // Nothing is sent before the estimate answers: an unreachable node here leaves the request free to retry.
    const gas = yield* estimate
    const hash = yield* gateway.relayer.send({
      to: call.address,
      data: encodeFunctionData(call as never),
      gas: gas + gas / 5n,
      carries: [call.functionName, ...carries],
      affinity
    })
    if (progress?.onSent !== undefined) yield* progress.onSent(hash)
    const receipt = yield* gateway.relayer.receipt(hash, progress?.onSent)
    if (receipt.status !== "success") {
      // Something changed between estimation and inclusion (a concurrent request spent the salt, or the balance):
      // estimating again at the new state names it.
      yield* estimate
      return yield* Effect.fail(new SettlementReverted({ reason: `transaction ${hash} reverted` }))
    }
    return receipt
  })
}

/**
 * A signed request for the forwarder: estimated alone, then carried, with the others waiting at the same time when
 * the suite can (`executeEach`), and answered with the receipt of the transaction that executed it. One that a batch
 * carried without executing it is estimated again at the new state, which names what changed (a concurrent request
 * spent the salt, or the balance).
 */
export const submitRequest = <E>(
  gateway: Gateway,
  functionName: string,
  args: ReadonlyArray<unknown>,
  request: { readonly to: Address; readonly salt: bigint; readonly entries: number; readonly packed?: Hex | undefined },
  toError: (error: unknown) => E,
  progress?: SettlementProgress
) => {
  const call: ContractCall = { address: gateway.addresses.forwarder, abi: forwarderAbi, functionName, args }
  const carries = [`salt:${request.salt}`, `account:${request.to}`]
  const batcher = gateway.batcher
  if (batcher === undefined) return submit(gateway, call, toError, carries, request.to, progress)
  return Effect.gen(function* () {
    const carried = yield* batcher.carry({
      data: encodeFunctionData(call as never),
      packed: request.packed,
      weight: 100_000n + 60_000n * BigInt(request.entries),
      salt: request.salt,
      account: request.to,
      carries: [functionName, ...carries],
      progress
    })
    if (carried._tag === "Refused") {
      return yield* Effect.fail(
        toError(new ContractFunctionRevertedError({ abi: forwarderAbi, data: carried.reason, functionName }))
      )
    }
    const { executed, receipt } = carried
    if (executed) return receipt
    yield* estimateOf(gateway, call, toError)
    return yield* Effect.fail(
      new SettlementReverted({
        reason: `request of salt ${request.salt} was not executed in transaction ${receipt.transactionHash}`
      })
    )
  })
}

/** The outcomes `logs` report for one account, in log order (which is request order). */
const outcomesOf = (logs: ReadonlyArray<Log>, account: Address, escrow: Address): ReadonlyArray<PaymentOutcome> =>
  parseEventLogs({ abi: svcAccountAbi, logs: logs.filter((log) => isAddressEqual(log.address, account)) })
    .map((log): PaymentOutcome | undefined => {
      switch (log.eventName) {
        case "PaymentExecuted":
          return { ...log.args, outcome: "paid" }
        case "IntentExecuted":
          return { ...log.args, outcome: "intent_executed" }
        case "IntentRegistered":
          return { ...log.args, outcome: "intent_registered" }
        case "PaymentEscrowed":
          return {
            id: log.args.id,
            groupID: log.args.groupID,
            outcome: "escrowed",
            token: log.args.token,
            recipient: escrow,
            amount: log.args.amount,
            claimId: log.args.claimId
          }
        default:
          return undefined
      }
    })
    .filter((outcome) => outcome !== undefined)

/**
 * What a request's receipt settled on `account`, as every execution (and its reconciliation) answers it: the logs of
 * the request of `salt` when the transaction carried several.
 */
export const settlementOf = (
  gateway: Gateway,
  receipt: TransactionReceipt,
  account: Address,
  salt?: bigint
): Settlement => ({
  transactionHash: receipt.transactionHash,
  blockNumber: receipt.blockNumber,
  gasUsed: receipt.gasUsed,
  payments: outcomesOf(
    (salt === undefined ? undefined : logsOfRequest(receipt, gateway.addresses.forwarder, salt)) ?? receipt.logs,
    account,
    gateway.addresses.escrow
  )
})
