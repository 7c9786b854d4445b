/**
 * The requests the forwarder executes, in the shape a wallet signed them (the EIP-712 messages of
 * `eip712/Types.ts`, with integers as `bigint`), each paired with its signature.
 */
import { type Address, type Hex, hashTypedData, type TypedData } from "viem"
import {
  type PaymentEntry,
  type PaymentsTypedDataMessage,
  type PaymentTypedDataMessage,
  PrimaryTypes,
  type RequestEnvelope,
  type RolesTypedDataMessage,
  type ScheduleTypedDataMessage,
  TypesOf
} from "../eip712/TypedData.ts"
import { type ForwarderLocation, forwarderDomain } from "../eip712/TypedDataBuilder.ts"

/** One `SvcPayment` entry. `payType` is 1 (pay now), 2 (register an intent) or 3 (escrow for an e-mail). */
export interface SvcPaymentMessage {
  readonly id: Hex
  readonly groupID: Hex
  readonly payAtTime: bigint
  readonly validMinutes: bigint
  readonly payType: bigint
  readonly token: Address
  readonly recipient: Address
  readonly amount: bigint
  readonly data: Hex
}

/** One `SvcRoleGrant` entry: `role` is `team_admin`, `team_finance_admin` or `team_viewer`. */
export interface SvcRoleGrantMessage {
  readonly role: string
  readonly account: Address
}

/** The envelope every request shares: signer, account acted on, single-use salt, expiry in unix seconds. */
export interface ForwardEnvelope<Data> {
  readonly from: Address
  readonly to: Address
  readonly salt: bigint
  readonly expires: bigint
  readonly data: Data
}

/** A batch of payments (`CreatePaymentsForwardRequest`). */
export type PaymentsForwardRequest = ForwardEnvelope<{ readonly payments: ReadonlyArray<SvcPaymentMessage> }>

/** One instant payment (`CreatePaymentForwardRequest`). */
export type PaymentForwardRequest = ForwardEnvelope<SvcPaymentMessage>

/** Manager role grants (`SetRolesForwardRequest`). */
export type RolesForwardRequest = ForwardEnvelope<ReadonlyArray<SvcRoleGrantMessage>>

/** One payee of a pay schedule: paid `amount` each instalment. */
export interface SvcSchedulePayeeMessage {
  readonly recipient: Address
  readonly amount: bigint
}

/** A pay schedule (`SvcPaySchedule`): `interval` is "weekly", "biweekly" or "monthly". */
export interface SvcPayScheduleMessage {
  readonly id: Hex
  readonly token: Address
  readonly firstPayAt: bigint
  readonly interval: string
  readonly count: bigint
  readonly validMinutes: bigint
  readonly payees: ReadonlyArray<SvcSchedulePayeeMessage>
}

/** A pay schedule (`CreatePayScheduleForwardRequest`). */
export type ScheduleForwardRequest = ForwardEnvelope<SvcPayScheduleMessage>

/** A request with the 65-byte signature (or ERC-1271 signature) of its `from` wallet. */
export interface Signed<Request> {
  readonly request: Request
  readonly signature: Hex
}

const paymentOf = (entry: PaymentEntry): SvcPaymentMessage => ({
  id: entry.id as Hex,
  groupID: entry.groupID as Hex,
  payAtTime: BigInt(entry.payAtTime),
  validMinutes: BigInt(entry.validMinutes),
  payType: BigInt(entry.payType),
  token: entry.token as Address,
  recipient: entry.recipient as Address,
  amount: BigInt(entry.amount),
  data: entry.data as Hex
})

const envelopeOf = (message: RequestEnvelope) => ({
  from: message.from as Address,
  to: message.to as Address,
  salt: BigInt(message.salt),
  expires: BigInt(message.expires)
})

/** The request of a batch bundle's `typed_data` (strings as issued) in the form the chain takes. */
export const paymentsRequestOf = (message: PaymentsTypedDataMessage): PaymentsForwardRequest => ({
  ...envelopeOf(message),
  data: { payments: message.data.payments.map(paymentOf) }
})

/** The request of an instant-payment bundle's `typed_data`. */
export const paymentRequestOf = (message: PaymentTypedDataMessage): PaymentForwardRequest => ({
  ...envelopeOf(message),
  data: paymentOf(message.data)
})

/** The request of a manager bundle's `typed_data`. */
export const rolesRequestOf = (message: RolesTypedDataMessage): RolesForwardRequest => ({
  ...envelopeOf(message),
  data: message.data.map((grant) => ({ role: grant.role, account: grant.account as Address }))
})

/** The request of a pay schedule bundle's `typed_data`. */
export const scheduleRequestOf = (message: ScheduleTypedDataMessage): ScheduleForwardRequest => ({
  ...envelopeOf(message),
  data: {
    id: message.data.id as Hex,
    token: message.data.token as Address,
    firstPayAt: BigInt(message.data.firstPayAt),
    interval: message.data.interval,
    count: BigInt(message.data.count),
    validMinutes: BigInt(message.data.validMinutes),
    payees: message.data.payees.map((payee) => ({
      recipient: payee.recipient as Address,
      amount: BigInt(payee.amount)
    }))
  }
})

/** The digest of one kind of request, as the forwarder at `location` computes it. */
const digestOf =
  <R>(kind: keyof typeof TypesOf) =>
  (location: ForwarderLocation, request: R): Hex =>
    hashTypedData({
      domain: forwarderDomain(location),
      // The `types` constants build their envelope with a function, so their type names are plain strings to viem.
      types: TypesOf[kind] as unknown as TypedData,
      primaryType: PrimaryTypes[kind],
      message: request as unknown as Record<string, unknown>
    })

/** The digest a wallet signs for a batch, as the forwarder at `location` computes it. */
export const paymentsRequestDigest = digestOf<PaymentsForwardRequest>("payments")

/** The digest a wallet signs for an instant payment. */
export const paymentRequestDigest = digestOf<PaymentForwardRequest>("payment")

/** The digest a wallet signs for manager role grants. */
export const rolesRequestDigest = digestOf<RolesForwardRequest>("roles")

/** The digest a wallet signs for a pay schedule. */
export const scheduleRequestDigest = digestOf<ScheduleForwardRequest>("schedule")
