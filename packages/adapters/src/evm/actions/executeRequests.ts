/**
 * Executing signed requests through the forwarder (payments, an instant payment, role grants) and a due intent on its
 * account: each answered with what the chain settled.
 */
import { svcAccountAbi } from "@svc/contracts"
import {
  type PaymentForwardRequest,
  type PaymentsForwardRequest,
  paymentRequestDigest,
  paymentsRequestDigest,
  type RolesForwardRequest,
  rolesRequestDigest,
  type SettlementProgress,
  type Signed
} from "@svc/domain/chain"
import { Effect } from "effect"
import { type Address, type Hex, isAddressEqual, parseEventLogs } from "viem"
import { intentError, type RevertContext, requestError } from "../ChainRevert.ts"
import { packPayment, packPayments } from "../PackedPayment.ts"
import { logsOfRequest } from "../RequestBatcher.ts"
import { accountAbi, type Gateway, locationOf, settlementOf, submit, submitRequest } from "./Gateway.ts"

/** The fields of a forward request every entry point takes first. */
const envelope = (request: { from: Address; to: Address; salt: bigint; expires: bigint }) => ({
  from: request.from,
  to: request.to,
  salt: request.salt,
  expires: request.expires
})

/** A signed request of payments sent as `functionName`, answered with what it settled on its account. */
const sendPayments = (
  gateway: Gateway,
  functionName: string,
  request: { from: Address; to: Address; salt: bigint; packed?: Hex | undefined },
  entries: number,
  args: ReadonlyArray<unknown>,
  digest: () => Hex,
  progress?: SettlementProgress
) => {
  const context: RevertContext = { account: request.to, signer: request.from, digest }
  return submitRequest(
    gateway,
    functionName,
    args,
    { ...request, entries },
    (error) => requestError(error, context),
    progress
  ).pipe(Effect.map((receipt) => settlementOf(gateway, receipt, request.to, request.salt)))
}

/** A signed batch of payments: packed when it can be (one immediate payment, `packPayments`). */
export const executePayments = Effect.fn("ChainGateway.executePayments")(function* (
  gateway: Gateway,
  { request, signature }: Signed<PaymentsForwardRequest>,
  progress?: SettlementProgress
) {
  return yield* sendPayments(
    gateway,
    "executePayments",
    { ...request, packed: packPayments({ request, signature }) },
    request.data.payments.length,
    [{ ...envelope(request), payments: request.data.payments }, signature],
    () => paymentsRequestDigest(locationOf(gateway), request),
    progress
  )
})

/** A signed instant payment: packed when it can be (`packPayment`), so that a batch carries it for less. */
export const executePayment = Effect.fn("ChainGateway.executePayment")(function* (
  gateway: Gateway,
  { request, signature }: Signed<PaymentForwardRequest>,
  progress?: SettlementProgress
) {
  return yield* sendPayments(
    gateway,
    "executePayment",
    { ...request, packed: packPayment({ request, signature }) },
    1,
    [{ ...envelope(request), data: request.data }, signature],
    () => paymentRequestDigest(locationOf(gateway), request),
    progress
  )
})

/** Signed manager role grants, answered with the grants the account logged. */
export const executeRoles = Effect.fn("ChainGateway.executeRoles")(function* (
  gateway: Gateway,
  { request, signature }: Signed<RolesForwardRequest>,
  progress?: SettlementProgress
) {
  const context: RevertContext = {
    account: request.to,
    signer: request.from,
    digest: () => rolesRequestDigest(locationOf(gateway), request)
  }
  const receipt = yield* submitRequest(
    gateway,
    "executeRoles",
    [{ ...envelope(request), data: request.data }, signature],
    { ...request, entries: request.data.length },
    (error) => requestError(error, context),
    progress
  )
  const logs = logsOfRequest(receipt, gateway.addresses.forwarder, request.salt) ?? receipt.logs
  const grants = parseEventLogs({
    abi: svcAccountAbi,
    eventName: "RoleGranted",
    logs: logs.filter((log) => isAddressEqual(log.address, request.to))
  }).map((log) => ({ role: log.args.role, account: log.args.account }))
  return {
    transactionHash: receipt.transactionHash,
    blockNumber: receipt.blockNumber,
    gasUsed: receipt.gasUsed,
    grants
  }
})

/** A registered intent of `account`, due: paid by the account itself (anyone may call it). */
export const executeIntent = Effect.fn("ChainGateway.executeIntent")(function* (
  gateway: Gateway,
  account: Address,
  id: Hex
) {
  const receipt = yield* submit(
    gateway,
    { address: account, abi: accountAbi, functionName: "executeIntent", args: [id] },
    (error) => intentError(error, { account }),
    [`account:${account}`],
    account
  )
  return settlementOf(gateway, receipt, account)
})
