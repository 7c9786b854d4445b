/**
 * The packed form of a signed immediate payment, which the forwarder's `executePaymentPacked` takes (contracts version
 * 4, decision 0082): the fields of the request that can vary, side by side, 263 bytes for the 676 of `executePayment`'s
 * calldata (or 740 of `executePayments`' with one payment). It is signed and verified as that request; the batcher
 * carries such requests together through `executePacked`.
 */
import type {
  ForwardEnvelope,
  PaymentForwardRequest,
  PaymentsForwardRequest,
  Signed,
  SvcPaymentMessage
} from "@svc/domain/chain"
import { concat, type Hex, numberToHex, size } from "viem"

/** The forwarder's kinds of request (`KIND_PAYMENTS`, `KIND_PAYMENT`), as the packed form's first byte. */
const kinds = { payments: 1, payment: 2 } as const

const field = (value: bigint, bytes: number): Hex => numberToHex(value, { size: bytes })

/** The packed bytes, or `undefined` when the payment or the signature is not one the packed form carries. */
const pack = (
  kind: keyof typeof kinds,
  request: ForwardEnvelope<unknown>,
  payment: SvcPaymentMessage,
  signature: Hex
): Hex | undefined => {
  const fits =
    payment.payType === 1n &&
    payment.payAtTime === 0n &&
    payment.validMinutes === 0n &&
    payment.data === "0x" &&
    size(payment.id) === 32 &&
    size(payment.groupID) === 32 &&
    size(signature) === 65 &&
    request.expires < 2n ** 40n &&
    payment.amount < 2n ** 128n
  if (!fits) return undefined
  return concat([
    field(BigInt(kinds[kind]), 1),
    request.from,
    request.to,
    field(request.salt, 32),
    field(request.expires, 5),
    payment.id,
    payment.groupID,
    payment.token,
    payment.recipient,
    field(payment.amount, 16),
    signature
  ])
}

/**
 * A signed instant payment packed, or `undefined` when it does not pack: only an immediate payment (`payType` 1,
 * `payAtTime` and `validMinutes` 0, no `data`) with a 65-byte signature, whose expiry fits 5 bytes and amount 16 (and
 * whose ids are the 32 bytes they are signed as).
 */
export const packPayment = ({ request, signature }: Signed<PaymentForwardRequest>): Hex | undefined =>
  pack("payment", request, request.data, signature)

/** A signed batch of one payment packed (what a single payment paid now is signed as), on the same terms. */
export const packPayments = ({ request, signature }: Signed<PaymentsForwardRequest>): Hex | undefined => {
  const [payment, ...others] = request.data.payments
  return payment === undefined || others.length > 0 ? undefined : pack("payments", request, payment, signature)
}
