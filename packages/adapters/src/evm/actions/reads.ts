/** What the gateway reads of the chain: intents, salts, settlements, roles, balances, blocks and readiness. */
import { svcAccountAbi, svcAccountForwarderAbi, testUsdcAbi } from "@svc/contracts"
import { ChainUnreachable, type IntentRecord } from "@svc/domain/chain"
import { Effect } from "effect"
import { type Address, type Hex, hexToBigInt, hexToNumber, keccak256, toHex } from "viem"
import { readError } from "../ChainRevert.ts"
import { type Gateway, read, settlementOf } from "./Gateway.ts"

/** The intent `id` of `account`; `undefined` when none was registered. */
export const intentOf = Effect.fn("ChainGateway.intent")(function* (gateway: Gateway, account: Address, id: Hex) {
  const [groupID, token, recipient, amount, payAtTime, validUntil, state] = yield* read<
    readonly [Hex, Address, Address, bigint, bigint, bigint, number]
  >(gateway, { address: account, abi: svcAccountAbi, functionName: "intents", args: [id] })
  if (state === 0) return undefined
  return {
    id,
    state: state === 1 ? "registered" : "executed",
    groupID,
    token,
    recipient,
    amount,
    payAtTime,
    validUntil
  } satisfies IntentRecord
})

/** Whether the forwarder has spent `salt`. */
export const isSaltUsed = (gateway: Gateway, salt: bigint) =>
  read<boolean>(gateway, {
    address: gateway.addresses.forwarder,
    abi: svcAccountForwarderAbi,
    functionName: "saltUsed",
    args: [salt]
  })

/**
 * What the request of `salt` settled on `account`, read back from its logs, once final (`CHAIN_CONFIRMATIONS` deep);
 * `undefined` when it never executed, or is not final yet.
 */
export const settlementOfSalt = Effect.fn("ChainGateway.settlementOfSalt")(function* (
  gateway: Gateway,
  account: Address,
  salt: bigint
) {
  // `account` is indexed, so the node filters by it; the salt is not, so the account's requests are matched here.
  const executed = yield* Effect.tryPromise({
    try: () =>
      gateway.client.getContractEvents({
        address: gateway.addresses.forwarder,
        abi: svcAccountForwarderAbi,
        eventName: "RequestExecuted",
        args: { account },
        fromBlock: "earliest",
        strict: true
      }),
    catch: readError
  })
  const log = executed.find((candidate) => candidate.args.salt === salt)
  if (log === undefined) return undefined
  const receipt = yield* Effect.tryPromise({
    try: () => gateway.client.getTransactionReceipt({ hash: log.transactionHash }),
    catch: readError
  })
  if (gateway.relayer.confirmations > 1n) {
    const head = yield* blockNumber(gateway)
    if (head - receipt.blockNumber + 1n < gateway.relayer.confirmations) return undefined
  }
  return settlementOf(gateway, receipt, account, salt)
})

/** Whether `wallet` holds `role` on `account`. */
export const hasRole = (gateway: Gateway, account: Address, role: string, wallet: Address) =>
  read<boolean>(gateway, {
    address: account,
    abi: svcAccountAbi,
    functionName: "hasRole",
    args: [keccak256(toHex(role)), wallet]
  })

/** What `holder` holds of `token` (the suite's USDC by default), in token units. */
export const balanceOf = (gateway: Gateway, holder: Address, token?: Address) =>
  read<bigint>(gateway, {
    address: token ?? gateway.addresses.token,
    abi: testUsdcAbi,
    functionName: "balanceOf",
    args: [holder]
  })

/**
 * The head's number, asked of the node each time: viem's getBlockNumber shares a call already in flight, so a
 * readiness check could report an answer the node gave just before it stopped.
 */
export const blockNumber = (gateway: Gateway) =>
  Effect.tryPromise({
    try: () => gateway.client.request({ method: "eth_blockNumber" }).then(hexToBigInt),
    catch: readError
  })

/**
 * Whether the node serves the gateway's chain with the suite's code, asked of it every time: a node that came back
 * empty must read as not ready.
 */
export const readiness = (gateway: Gateway) =>
  Effect.gen(function* () {
    const { addresses, chainId, client } = gateway
    const contracts: ReadonlyArray<readonly [string, Address]> = [
      ["forwarder", addresses.forwarder],
      ["escrow", addresses.escrow],
      ["token", addresses.token]
    ]
    const [servedChain, ...codes] = yield* Effect.tryPromise({
      try: () =>
        Promise.all([
          client.request({ method: "eth_chainId" }).then(hexToNumber),
          ...contracts.map(([, address]) => client.request({ method: "eth_getCode", params: [address, "latest"] }))
        ]),
      catch: readError
    })
    if (servedChain !== chainId) {
      return yield* new ChainUnreachable({ reason: `the node serves chain ${servedChain}, not ${chainId}` })
    }
    const missing = contracts.filter((_, i) => codes[i] === undefined || codes[i] === "0x").map(([name]) => name)
    if (missing.length > 0) {
      return yield* new ChainUnreachable({ reason: `no contract code on the node for: ${missing.join(", ")}` })
    }
  })

/** The hash of block `number`; `undefined` for a block the chain does not have (yet). */
export const blockHash = (gateway: Gateway, number: bigint) =>
  Effect.tryPromise({
    try: () => gateway.client.getBlock({ blockNumber: number }).then((block) => block.hash as Hex),
    catch: (error) => error
  }).pipe(
    // A block the chain does not have (yet) is no block; any other failure is the node's.
    Effect.catch((error) =>
      error instanceof Error && error.name === "BlockNotFoundError"
        ? Effect.succeed(undefined)
        : Effect.fail(readError(error))
    )
  )
