/**
 * Pay schedules on chain (contracts version 5): a signed schedule registered through the forwarder, an instalment paid
 * by its account (anyone may ask), schedules canceled by the service's operators, and a schedule read back.
 */
import { svcAccountAbi } from "@svc/contracts"
import {
  type InstalmentSettlement,
  type ScheduleCancellation,
  type ScheduleForwardRequest,
  type ScheduleRecord,
  type ScheduleRegistration,
  type SettlementProgress,
  type Signed,
  scheduleRequestDigest
} from "@svc/domain/chain"
import { Effect } from "effect"
import { type Address, type Hex, isAddressEqual, parseEventLogs, type TransactionReceipt } from "viem"
import { instalmentError, readError, requestError, writeError } from "../ChainRevert.ts"
import { accountAbi, forwarderAbi, type Gateway, locationOf, read, submit, submitRequest } from "./Gateway.ts"

/** A signed pay schedule, registered on its account (carried with other signed requests when they wait together). */
export const executeSchedule = Effect.fn("ChainGateway.executeSchedule")(function* (
  gateway: Gateway,
  { request, signature }: Signed<ScheduleForwardRequest>,
  progress?: SettlementProgress
) {
  const receipt = yield* submitRequest(
    gateway,
    "executeSchedule",
    [
      { from: request.from, to: request.to, salt: request.salt, expires: request.expires, data: request.data },
      signature
    ],
    { ...request, entries: request.data.payees.length },
    (error) =>
      requestError(error, {
        account: request.to,
        signer: request.from,
        digest: () => scheduleRequestDigest(locationOf(gateway), request)
      }),
    progress
  )
  return {
    transactionHash: receipt.transactionHash,
    blockNumber: receipt.blockNumber,
    gasUsed: receipt.gasUsed,
    id: request.data.id,
    signer: request.from
  } satisfies ScheduleRegistration
})

/** Instalment `n` of schedule `id` on `account`, due: paid by the account itself (anyone may call it). */
export const executeInstalment = Effect.fn("ChainGateway.executeInstalment")(function* (
  gateway: Gateway,
  account: Address,
  id: Hex,
  n: number
) {
  const receipt = yield* submit(
    gateway,
    { address: account, abi: accountAbi, functionName: "executeInstalment", args: [id, BigInt(n)] },
    (error) => instalmentError(error, { account }),
    [`account:${account}`, `schedule:${id}:${n}`],
    account
  )
  return instalmentOf(receipt, account, id, n)
})

/** Instalment `n` of `id` as `receipt` paid it: its own logs, whatever else the transaction carried. */
const instalmentOf = (
  receipt: Pick<TransactionReceipt, "logs" | "transactionHash" | "blockNumber" | "gasUsed">,
  account: Address,
  id: Hex,
  n: number
): InstalmentSettlement => ({
  transactionHash: receipt.transactionHash,
  blockNumber: receipt.blockNumber,
  gasUsed: receipt.gasUsed,
  id,
  n,
  payments: parseEventLogs({
    abi: svcAccountAbi,
    eventName: "InstalmentPaid",
    logs: receipt.logs.filter((log) => isAddressEqual(log.address, account))
  })
    .filter((log) => log.args.id === id && Number(log.args.n) === n)
    .map((log) => ({ recipient: log.args.recipient, token: log.args.token, amount: log.args.amount }))
})

/** How instalment `n` of `id` was paid, from its logs since `fromBlock` and their transaction; `undefined` if not. */
export const instalmentPaidOf = Effect.fn("ChainGateway.instalmentPaid")(function* (
  gateway: Gateway,
  account: Address,
  id: Hex,
  n: number,
  fromBlock: bigint
) {
  const logs = yield* Effect.tryPromise({
    try: () =>
      gateway.client.getLogs({
        address: account,
        event: instalmentPaidEvent,
        args: { id, n: BigInt(n) },
        fromBlock,
        toBlock: "latest"
      }),
    catch: readError
  })
  const first = logs[0]
  if (first === undefined || first.transactionHash === null) return undefined
  const receipt = yield* Effect.tryPromise({
    try: () => gateway.client.getTransactionReceipt({ hash: first.transactionHash as Hex }),
    catch: readError
  })
  return instalmentOf(receipt, account, id, n)
})

const instalmentPaidEvent = svcAccountAbi.find(
  (item): item is Extract<(typeof svcAccountAbi)[number], { type: "event"; name: "InstalmentPaid" }> =>
    item.type === "event" && item.name === "InstalmentPaid"
) as Extract<(typeof svcAccountAbi)[number], { type: "event"; name: "InstalmentPaid" }>

/** Cancels schedules of `account` for good, through the forwarder's operators; idempotent. */
export const cancelSchedules = Effect.fn("ChainGateway.cancelSchedules")(function* (
  gateway: Gateway,
  account: Address,
  ids: ReadonlyArray<Hex>
) {
  if (ids.length === 0) return { canceled: [] } satisfies ScheduleCancellation
  const receipt = yield* submit(
    gateway,
    { address: gateway.addresses.forwarder, abi: forwarderAbi, functionName: "cancelSchedules", args: [account, ids] },
    writeError,
    [`account:${account}`, ...ids.map((id) => `schedule:${id}`)],
    account
  )
  const canceled = parseEventLogs({
    abi: svcAccountAbi,
    eventName: "ScheduleCanceled",
    logs: receipt.logs.filter((log) => isAddressEqual(log.address, account))
  }).map((log) => log.args.id)
  return { transactionHash: receipt.transactionHash, canceled } satisfies ScheduleCancellation
})

/** Schedule `id` of `account` as stored; `undefined` when none was registered. */
export const scheduleOf = Effect.fn("ChainGateway.schedule")(function* (gateway: Gateway, account: Address, id: Hex) {
  const [token, firstPayAt, , , count, , signer, , , paid] = yield* read<
    readonly [Address, number, number, number, number, boolean, Address, number, number, bigint]
  >(gateway, { address: account, abi: svcAccountAbi, functionName: "schedules", args: [id] })
  if (paid === 0n) return undefined
  const active = yield* read<boolean>(gateway, {
    address: account,
    abi: svcAccountAbi,
    functionName: "scheduleActive",
    args: [id]
  })
  return {
    id,
    active,
    signer,
    token,
    firstPayAt: BigInt(firstPayAt),
    count,
    paid: Array.from({ length: count }, (_, n) => n).filter((n) => (paid >> BigInt(n)) & 1n)
  } satisfies ScheduleRecord
})
