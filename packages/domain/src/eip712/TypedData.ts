/**
 * The typed-data bundle of SPEC §2.7 as schemas: `{domain, types, typed_data, primary_type}` for a batch of
 * payments, an instant payment and manager role grants.
 *
 * Values in `typed_data` are strings, as they travel in JSON: ids as bytes32 hex, numbers as decimal strings,
 * addresses as hex, `data` as hex bytes. Both viem and ethers sign these strings unchanged.
 */
import { Schema } from "effect"
import { Address, Bytes32, HexBytes, Uint256String } from "../Evm.ts"
import { UserId } from "../Ids.ts"
import { PaymentRequestTypes, PaymentsRequestTypes, PayoutAddressRequestTypes, RolesRequestTypes } from "./Types.ts"

/** The EIP-712 domain (DESIGN §5): `SvcAccountForwarder` 1.0.0 on a chain, at the forwarder's address. */
export const TypedDataDomain = Schema.Struct({
  name: Schema.String,
  version: Schema.String,
  chainId: Schema.Int.pipe(Schema.check(Schema.isGreaterThan(0))),
  verifyingContract: Address
})
export type TypedDataDomain = typeof TypedDataDomain.Type

/** One member of an EIP-712 struct type. */
export const TypedDataField = Schema.Struct({ name: Schema.String, type: Schema.String })
export type TypedDataField = typeof TypedDataField.Type

/** Type name -> members (`types` of the bundle; `EIP712Domain` is implied by `domain`, as viem and ethers expect). */
export const TypedDataTypes = Schema.Record(Schema.String, Schema.Array(TypedDataField))
export type TypedDataTypes = typeof TypedDataTypes.Type

/** `payType` as a decimal string: 1 immediate, 2 intent, 3 escrow. */
export const PayTypeString = Schema.Literals(["1", "2", "3"])
export type PayTypeString = typeof PayTypeString.Type

/** A single payment entry (SPEC §2.7), all fields strings. */
export const PaymentEntry = Schema.Struct({
  id: Bytes32,
  groupID: Bytes32,
  payAtTime: Uint256String,
  validMinutes: Uint256String,
  payType: PayTypeString,
  token: Address,
  recipient: Address,
  amount: Uint256String,
  data: HexBytes
})
export type PaymentEntry = typeof PaymentEntry.Type

/** The fields every forward request shares: signer wallet, svc account, single-use salt, expiry (unix seconds). */
export const RequestEnvelopeFields = {
  from: Address,
  to: Address,
  salt: Uint256String,
  expires: Uint256String
} as const

/** The envelope alone, as the builders take it. */
export const RequestEnvelope = Schema.Struct(RequestEnvelopeFields)
export type RequestEnvelope = typeof RequestEnvelope.Type

/** Most payments one request carries: a batch's entries (docs/decisions/0016). */
export const maxPaymentsPerRequest = 1000

/** Most role grants one request carries: a request's manager invites. */
export const maxRoleGrantsPerRequest = 100

/** `typed_data` of a batch: `data.payments` is the list of entries. */
export const PaymentsTypedDataMessage = Schema.Struct({
  ...RequestEnvelopeFields,
  data: Schema.Struct({
    payments: Schema.NonEmptyArray(PaymentEntry).pipe(Schema.check(Schema.isMaxLength(maxPaymentsPerRequest)))
  })
})
export type PaymentsTypedDataMessage = typeof PaymentsTypedDataMessage.Type

/** `typed_data` of an instant payment: `data` is one entry. */
export const PaymentTypedDataMessage = Schema.Struct({ ...RequestEnvelopeFields, data: PaymentEntry })
export type PaymentTypedDataMessage = typeof PaymentTypedDataMessage.Type

/** A role name as signed: lower-case snake case (`team_admin`); the forwarder refuses roles it does not know. */
export const RoleName = Schema.String.pipe(
  Schema.check(
    Schema.isPattern(/^[a-z][a-z0-9_]{0,63}$/u, {
      expected: "a role name such as team_admin",
      message: "Expected a role name: lower-case letters, digits and _, at most 64 characters"
    })
  )
)

/** One manager role grant: `role` to the wallet `account` (SPEC §4.9). */
export const RoleGrant = Schema.Struct({ role: RoleName, account: Address })
export type RoleGrant = typeof RoleGrant.Type

/** `typed_data` of manager invites: `data` is the list of grants. */
export const RolesTypedDataMessage = Schema.Struct({
  ...RequestEnvelopeFields,
  data: Schema.NonEmptyArray(RoleGrant).pipe(Schema.check(Schema.isMaxLength(maxRoleGrantsPerRequest)))
})
export type RolesTypedDataMessage = typeof RolesTypedDataMessage.Type

/** A payout address as signed: the user it is for, and the address (decision 0108). */
export const PayoutAddressGrant = Schema.Struct({ user: UserId, payoutAddress: Address })
export type PayoutAddressGrant = typeof PayoutAddressGrant.Type

/** `typed_data` of a payout address proof: `data` names the user and the address. */
export const PayoutAddressTypedDataMessage = Schema.Struct({ ...RequestEnvelopeFields, data: PayoutAddressGrant })
export type PayoutAddressTypedDataMessage = typeof PayoutAddressTypedDataMessage.Type

/** The primary type of each kind of request. */
export const PrimaryTypes = {
  payments: "CreatePaymentsForwardRequest",
  payment: "CreatePaymentForwardRequest",
  roles: "SetRolesForwardRequest",
  payout: "SetPayoutAddressRequest"
} as const

/** The `types` of each kind of request. */
export const TypesOf = {
  payments: PaymentsRequestTypes,
  payment: PaymentRequestTypes,
  roles: RolesRequestTypes,
  payout: PayoutAddressRequestTypes
} as const

const bundle = <M extends Schema.Top, P extends string>(message: M, primaryType: P) =>
  Schema.Struct({
    domain: TypedDataDomain,
    types: TypedDataTypes,
    typed_data: message,
    primary_type: Schema.Literal(primaryType)
  })

/** The bundle for a batch of payments (POST /v2/payments). */
export const PaymentsTypedDataBundle = bundle(PaymentsTypedDataMessage, PrimaryTypes.payments)
export type PaymentsTypedDataBundle = typeof PaymentsTypedDataBundle.Type

/** The bundle for an instant payment (POST /v2/payments/external_entity/instant). */
export const PaymentTypedDataBundle = bundle(PaymentTypedDataMessage, PrimaryTypes.payment)
export type PaymentTypedDataBundle = typeof PaymentTypedDataBundle.Type

/** The bundle for manager invites (POST /v2/invites/manager). */
export const RolesTypedDataBundle = bundle(RolesTypedDataMessage, PrimaryTypes.roles)
export type RolesTypedDataBundle = typeof RolesTypedDataBundle.Type

/** The bundle for a payout address proof (POST /v2/user/withdraw_account). */
export const PayoutAddressTypedDataBundle = bundle(PayoutAddressTypedDataMessage, PrimaryTypes.payout)
export type PayoutAddressTypedDataBundle = typeof PayoutAddressTypedDataBundle.Type

/** Any bundle the service issues. */
export type TypedDataBundle =
  | PaymentsTypedDataBundle
  | PaymentTypedDataBundle
  | RolesTypedDataBundle
  | PayoutAddressTypedDataBundle
