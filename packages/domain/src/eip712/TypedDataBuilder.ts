/**
 * Builders of the typed-data bundles the service issues (SPEC §2.7, DESIGN §5).
 *
 * The pure builders take every value; the `make*` builders draw the salt from `Randomness` and the expiry from
 * `Clock`, so the API issues fresh requests and tests stay deterministic.
 */
import { Clock, Context, Effect } from "effect"
import { getAddress } from "viem"
import type { Address, Uint256String } from "../Evm.ts"
import { type Randomness, randomHex } from "../Randomness.ts"
import {
  type PaymentEntry,
  type PaymentsTypedDataBundle,
  type PaymentTypedDataBundle,
  type PayoutAddressGrant,
  type PayoutAddressTypedDataBundle,
  PrimaryTypes,
  type RequestEnvelope,
  type RoleGrant,
  type RolesTypedDataBundle,
  type TypedDataDomain,
  TypesOf
} from "./TypedData.ts"
import { ForwarderDomain } from "./Types.ts"

/** Where the forwarder lives: the chain and its address. */
export interface ForwarderLocation {
  readonly chainId: number
  readonly verifyingContract: Address
}

/** Default lifetime of issued typed data: 10 minutes (DESIGN §5). */
export const defaultTypedDataTtlSeconds = 10 * 60

/** The EIP-712 domain of the forwarder at a location. */
export const forwarderDomain = (location: ForwarderLocation): TypedDataDomain => ({
  name: ForwarderDomain.name,
  version: ForwarderDomain.version,
  chainId: location.chainId,
  verifyingContract: getAddress(location.verifyingContract)
})

const envelope = (request: RequestEnvelope): RequestEnvelope => ({
  from: getAddress(request.from),
  to: getAddress(request.to),
  salt: request.salt,
  expires: request.expires
})

const entry = (payment: PaymentEntry): PaymentEntry => ({
  ...payment,
  token: getAddress(payment.token),
  recipient: getAddress(payment.recipient)
})

/**
 * The bundle of a batch of payments.
 *
 * @example
 * const bundle = paymentsTypedData(
 *   { chainId: 42161, verifyingContract: forwarder },
 *   { from: wallet, to: teamAccount, salt: "1", expires: "1750000600" },
 *   [{ id, groupID, payAtTime: "0", validMinutes: "0", payType: "1", token: usdc, recipient, amount: "1000000", data: "0x" }]
 * )
 * const signature = await account.signTypedData({ ...bundle, primaryType: bundle.primary_type, message: bundle.typed_data })
 */
export const paymentsTypedData = (
  location: ForwarderLocation,
  request: RequestEnvelope,
  payments: readonly [PaymentEntry, ...Array<PaymentEntry>]
): PaymentsTypedDataBundle => ({
  domain: forwarderDomain(location),
  types: TypesOf.payments,
  typed_data: {
    ...envelope(request),
    data: { payments: [entry(payments[0]), ...payments.slice(1).map(entry)] }
  },
  primary_type: PrimaryTypes.payments
})

/**
 * The bundle of an instant payment (one entry; for an e-mail recipient, an escrow entry).
 *
 * @example
 * const bundle = paymentTypedData(location, envelope, { ...entry, payType: "3", recipient: escrow, data: claimIdOf(email) })
 */
export const paymentTypedData = (
  location: ForwarderLocation,
  request: RequestEnvelope,
  payment: PaymentEntry
): PaymentTypedDataBundle => ({
  domain: forwarderDomain(location),
  types: TypesOf.payment,
  typed_data: { ...envelope(request), data: entry(payment) },
  primary_type: PrimaryTypes.payment
})

/**
 * The bundle of manager role grants (manager invites): each entry grants `role` to the wallet `account`.
 *
 * @example
 * const bundle = rolesTypedData(location, envelope, [{ role: "team_admin", account: invitee }])
 */
export const rolesTypedData = (
  location: ForwarderLocation,
  request: RequestEnvelope,
  grants: readonly [RoleGrant, ...Array<RoleGrant>]
): RolesTypedDataBundle => ({
  domain: forwarderDomain(location),
  types: TypesOf.roles,
  typed_data: {
    ...envelope(request),
    data: [grants[0], ...grants.slice(1)].map((grant) => ({
      role: grant.role,
      account: getAddress(grant.account)
    })) as [RoleGrant, ...Array<RoleGrant>]
  },
  primary_type: PrimaryTypes.roles
})

/**
 * The bundle of a payout address proof (decision 0108): the member's wallet (`from`) and the new address both sign it;
 * `to` is the member's own svc account, where they are paid without one.
 *
 * @example
 * const bundle = payoutAddressTypedData(location, { from: wallet, to: memberAccount, salt, expires }, { user: "us-…", payoutAddress })
 * const proofs = [await payout.signTypedData(signableOf(bundle)), await wallet.signTypedData(signableOf(bundle))]
 */
export const payoutAddressTypedData = (
  location: ForwarderLocation,
  request: RequestEnvelope,
  grant: PayoutAddressGrant
): PayoutAddressTypedDataBundle => ({
  domain: forwarderDomain(location),
  types: TypesOf.payout,
  typed_data: { ...envelope(request), data: { user: grant.user, payoutAddress: getAddress(grant.payoutAddress) } },
  primary_type: PrimaryTypes.payout
})

/**
 * The salts this process hands out (decision 0065): a word of 248 random bits, and its 256 salts in turn. The
 * forwarder keeps used salts as bits of a word, so the requests of one word share one storage slot: the first costs
 * a new slot, the others a bit in it. Words are random, so processes never share one.
 */
export const SaltWords = Context.Reference<{ current?: { readonly word: bigint; next: number } }>(
  "@svc/domain/eip712/SaltWords",
  { defaultValue: () => ({}) }
)

/** A fresh salt (the next bit of this process's word), as a decimal string. */
export const makeSalt: Effect.Effect<Uint256String, never, Randomness> = Effect.gen(function* () {
  const words = yield* SaltWords
  const spent = () => words.current === undefined || words.current.next > 255
  if (spent()) {
    const word = BigInt(`0x${yield* randomHex(31)}`)
    // Another fiber may have begun a word meanwhile: either serves, and no bit is handed out twice.
    if (spent()) words.current = { word, next: 0 }
  }
  const current = words.current as { readonly word: bigint; next: number }
  return ((current.word << 8n) | BigInt(current.next++)).toString(10)
})

/** Who signs and which account the request acts on; the lifetime defaults to 10 minutes. */
export interface EnvelopeParameters {
  readonly from: Address
  readonly to: Address
  readonly ttlSeconds?: number
}

/** A fresh envelope: a new salt, expiring `ttlSeconds` after the current `Clock` time. */
export const makeRequestEnvelope = Effect.fn("TypedDataBuilder.makeRequestEnvelope")(function* (
  parameters: EnvelopeParameters
) {
  const now = yield* Clock.currentTimeMillis
  const salt = yield* makeSalt
  const expires = Math.floor(now / 1000) + (parameters.ttlSeconds ?? defaultTypedDataTtlSeconds)
  return { from: parameters.from, to: parameters.to, salt, expires: String(expires) } satisfies RequestEnvelope
})

/** A fresh batch bundle (new salt, expiry from `Clock`). */
export const makePaymentsTypedData = Effect.fn("TypedDataBuilder.makePaymentsTypedData")(function* (
  location: ForwarderLocation,
  parameters: EnvelopeParameters,
  payments: readonly [PaymentEntry, ...Array<PaymentEntry>]
) {
  return paymentsTypedData(location, yield* makeRequestEnvelope(parameters), payments)
})

/** A fresh instant-payment bundle (new salt, expiry from `Clock`). */
export const makePaymentTypedData = Effect.fn("TypedDataBuilder.makePaymentTypedData")(function* (
  location: ForwarderLocation,
  parameters: EnvelopeParameters,
  payment: PaymentEntry
) {
  return paymentTypedData(location, yield* makeRequestEnvelope(parameters), payment)
})

/** A fresh role-grants bundle (new salt, expiry from `Clock`). */
export const makeRolesTypedData = Effect.fn("TypedDataBuilder.makeRolesTypedData")(function* (
  location: ForwarderLocation,
  parameters: EnvelopeParameters,
  grants: readonly [RoleGrant, ...Array<RoleGrant>]
) {
  return rolesTypedData(location, yield* makeRequestEnvelope(parameters), grants)
})

/** A fresh payout address proof bundle (new salt, expiry from `Clock`). */
export const makePayoutAddressTypedData = Effect.fn("TypedDataBuilder.makePayoutAddressTypedData")(function* (
  location: ForwarderLocation,
  parameters: EnvelopeParameters,
  grant: PayoutAddressGrant
) {
  return payoutAddressTypedData(location, yield* makeRequestEnvelope(parameters), grant)
})
