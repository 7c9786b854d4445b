/**
 * From a validated request to the entries a wallet signs: the pay type, the token amount, the on-chain ids.
 *
 * The API resolves recipients (user nanoid -> wallet) and ids first; these functions only decide what is signed,
 * so the same request always yields the same entries.
 */
import type { Address } from "../Evm.ts"
import type { PaymentEntry } from "../eip712/TypedData.ts"
import { PayType } from "../eip712/Types.ts"
import type { PaymentGroupId, PaymentId } from "../Ids.ts"
import { claimIdOf, onchainIdOf, tokenAmountOf } from "./Payment.ts"

/** How long an intent stays executable after its `pay_at_time` unless the caller says otherwise: one day. */
export const defaultValidMinutes = 24 * 60

/** One resolved recipient of a batch. */
export interface PlannedPayment {
  readonly payment: PaymentId
  readonly recipient: Address
  readonly amountCents: number
}

/** The batch's common terms. `payAtTime` (unix seconds) matters for intents; immediate payments use 0. */
export interface BatchTerms {
  readonly group: PaymentGroupId
  readonly payNow: boolean
  readonly token: Address
  readonly tokenDecimals?: number
  readonly payAtTime?: number
  readonly validMinutes?: number
}

/**
 * The signed entries of a batch: pay type 1 (immediate) when `payNow`, else 2 (intent at `payAtTime`).
 *
 * @example
 * const entries = paymentEntriesOf({ group, payNow: true, token: usdc }, [{ payment, recipient, amountCents: 2500 }])
 * // [{ payType: "1", amount: "25000000", id: onchainIdOf(payment), groupID: onchainIdOf(group), ... }]
 */
export const paymentEntriesOf = (
  terms: BatchTerms,
  payments: readonly [PlannedPayment, ...Array<PlannedPayment>]
): [PaymentEntry, ...Array<PaymentEntry>] => {
  const entry = (planned: PlannedPayment): PaymentEntry => ({
    id: onchainIdOf(planned.payment),
    groupID: onchainIdOf(terms.group),
    payAtTime: terms.payNow ? "0" : String(terms.payAtTime ?? 0),
    validMinutes: terms.payNow ? "0" : String(terms.validMinutes ?? defaultValidMinutes),
    payType: String(terms.payNow ? PayType.Immediate : PayType.Intent) as PaymentEntry["payType"],
    token: terms.token,
    recipient: planned.recipient,
    amount: tokenAmountOf(planned.amountCents, terms.tokenDecimals),
    data: "0x"
  })
  return [entry(payments[0]), ...payments.slice(1).map(entry)]
}

/** An instant payment to an e-mail: pay type 3, into the escrow contract, claimable with `claimIdOf(email)`. */
export const escrowEntryOf = (parameters: {
  readonly payment: PaymentId
  readonly group: PaymentGroupId
  readonly escrow: Address
  readonly email: string
  readonly amountCents: number
  readonly token: Address
  readonly tokenDecimals?: number
}): PaymentEntry => ({
  id: onchainIdOf(parameters.payment),
  groupID: onchainIdOf(parameters.group),
  payAtTime: "0",
  validMinutes: "0",
  payType: String(PayType.Escrow) as PaymentEntry["payType"],
  token: parameters.token,
  recipient: parameters.escrow,
  amount: tokenAmountOf(parameters.amountCents, parameters.tokenDecimals),
  data: claimIdOf(parameters.email)
})
