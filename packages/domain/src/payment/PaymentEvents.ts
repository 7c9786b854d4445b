/**
 * The events payments publish (SPEC §6): the group created by an execution, and each payment sent, failed or
 * canceled, with the recipients named from their profiles.
 */
import { Effect } from "effect"
import type { Receipt } from "../chain/Settlement.ts"
import { makeDomainEvent } from "../event/EventEnvelope.ts"
import { type ChainFacts, type EventRecipient, paymentEventPayloadOf } from "../event/EventPayload.ts"
import type { CompanyId, TeamId } from "../Ids.ts"
import { displayNameOf } from "../user/User.ts"
import { UserRepository } from "../user/UserRepository.ts"
import { type Payment, usdcDecimals } from "./Payment.ts"
import type { paymentTriggerEvents } from "./PaymentMachine.ts"

/** The token as events describe it. */
export const tokenInfo = { name: "USD Coin", symbol: "USDC", decimals: usdcDecimals }

/** The chain facts events carry for a transaction the chain included. */
export const chainFactsOf = (chainId: number, receipt: Receipt): ChainFacts => ({
  network: chainId === 42161 ? "arbitrum" : `chain-${chainId}`,
  chain_id: chainId,
  transaction_hash: receipt.transactionHash,
  block_number: Number(receipt.blockNumber)
})

/** Where an event belongs: the team, and its company when known. */
export interface EventScope {
  readonly team_nanoid: TeamId
  readonly company_nanoid?: CompanyId
}

/** How events name the recipient of each of `payments`: the member's profile, or the e-mail of an escrow payment. */
export const recipientsOf = Effect.fn("PaymentEvents.recipientsOf")(function* (payments: ReadonlyArray<Payment>) {
  const ids = [...new Set(payments.flatMap((p) => (p.recipient_nanoid === undefined ? [] : [p.recipient_nanoid])))]
  const users = new Map((yield* UserRepository.use((u) => u.findByIds(ids))).map((u) => [u.nanoid, u]))
  return (payment: Payment): EventRecipient => {
    if (payment.recipient_nanoid === undefined) {
      return { nanoid: "", email: payment.recipient_email ?? "", name: "", entity_type: "email" }
    }
    const user = users.get(payment.recipient_nanoid)
    return {
      nanoid: payment.recipient_nanoid,
      email: user?.email ?? "",
      name: user === undefined ? "" : displayNameOf(user),
      entity_type: "user"
    }
  }
})

/** `payment.group.created` for the payments an execution recorded, and `payment.sent` for each when paid at once. */
export const executionEventsOf = Effect.fn("PaymentEvents.executionEventsOf")(function* (
  scope: EventScope,
  payments: ReadonlyArray<Payment>,
  sent: boolean,
  chain: ChainFacts | null = null
) {
  const recipients = yield* recipientsOf(payments)
  const payloads = payments.map((payment) => paymentEventPayloadOf(payment, recipients(payment), tokenInfo, chain))
  const first = payments[0]
  const group =
    first === undefined
      ? []
      : [
          yield* makeDomainEvent({
            ...scope,
            event_type: "payment.group.created",
            data: {
              nanoid: first.group_nanoid,
              onchain_id: first.group_onchain_id,
              created_at: first.created_at,
              updated_at: first.updated_at,
              invoice_type: first.pay_type === "3" ? "instant" : "batch",
              invoice_description: first.invoice.invoice_description,
              role_description: first.invoice.role_description,
              currency: "USD",
              chain,
              payments: payloads
            }
          })
        ]
  const each = sent
    ? yield* Effect.forEach(payloads, (payload) =>
        makeDomainEvent({ ...scope, event_type: "payment.sent", data: payload })
      )
    : []
  return [...group, ...each]
})

/** The event of one payment that moved (`payment.sent`, `payment.failed`, `payment.canceled`). */
export const paymentEventOf = Effect.fn("PaymentEvents.paymentEventOf")(function* (
  scope: EventScope,
  eventType: (typeof paymentTriggerEvents)[keyof typeof paymentTriggerEvents],
  payment: Payment,
  chain: ChainFacts | null = null
) {
  const recipients = yield* recipientsOf([payment])
  return yield* makeDomainEvent({
    ...scope,
    event_type: eventType,
    data: paymentEventPayloadOf(payment, recipients(payment), tokenInfo, chain)
  })
})
