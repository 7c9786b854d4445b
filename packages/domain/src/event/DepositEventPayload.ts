/**
 * Payload shapes of the deposit events (issue 35): USDC from outside confirmed in a team's account
 * (`deposit.received`, or withdrawn by a reorg with status `reverted`), and USDC from another team's account
 * (`token.transfer`), with the samples test deliveries send.
 */
import { Schema, Struct } from "effect"
import { ChainFacts, TokenInfo } from "./EventFacts.ts"

/** The token a deposit moves: USDC, by name (its address is the suite's). */
const DepositToken = TokenInfo.mapFields(Struct.omit(["address"]))

/** Where the chain holds the transfer, and how deep it was when announced. */
const DepositChainFacts = { ...ChainFacts.fields, log_index: Schema.Int, confirmations: Schema.Int }

/** `deposit` of `deposit.received`: the real service's deposit shape, with the chain's facts. */
export const DepositEventPayload = Schema.Struct({
  nanoid: Schema.String,
  entity_nanoid: Schema.String,
  /** `transfer` only when a reorg withdrew a transfer between teams (status `reverted`). */
  kind: Schema.Literals(["received", "transfer"]),
  source_currency: Schema.String,
  source_amount_cents: Schema.Int,
  destination_currency: Schema.String,
  destination_amount_cents: Schema.Int,
  token_amount: Schema.String,
  transaction_date: Schema.String,
  status: Schema.Literals(["complete", "reverted"]),
  from: Schema.String,
  token: DepositToken,
  ...DepositChainFacts
})
export type DepositEventPayload = typeof DepositEventPayload.Type

/** `transfer` of `token.transfer`: USDC from one team's account to another's. */
export const TokenTransferEventPayload = Schema.Struct({
  nanoid: Schema.String,
  team_nanoid: Schema.String,
  from: Schema.String,
  to: Schema.String,
  amount_cents: Schema.Int,
  token_amount: Schema.String,
  token: DepositToken,
  ...DepositChainFacts
})
export type TokenTransferEventPayload = typeof TokenTransferEventPayload.Type

const sampleTime = "2026-01-15T10:30:00.000Z"
const sampleChain = {
  network: "arbitrum",
  chain_id: 42161,
  transaction_hash: `0x${"77".repeat(32)}`,
  block_number: 123456789,
  log_index: 3,
  confirmations: 12
}
const sampleToken = { name: "USD Coin", symbol: "USDC", decimals: 6 }

/** The sample payload of a deposit kind (`deposit.*`, `token.transfer`), or `undefined` for another kind. */
export const sampleDepositPayloadOf = (type: string): Record<string, unknown> | undefined => {
  if (type === "token.transfer") {
    return {
      nanoid: "dp-sample000002",
      team_nanoid: "te-sample000001",
      from: "0x2222222222222222222222222222222222222222",
      to: "0x3333333333333333333333333333333333333333",
      amount_cents: 100_000,
      token_amount: "1000000000",
      token: sampleToken,
      ...sampleChain
    } satisfies TokenTransferEventPayload
  }
  if (!type.startsWith("deposit.")) return undefined
  return {
    nanoid: "dp-sample000001",
    entity_nanoid: "te-sample000001",
    // Kinds the service does not emit keep their own name here, for test deliveries.
    kind: type === "deposit.received" ? "received" : type.slice("deposit.".length),
    source_currency: "USDC",
    source_amount_cents: 100_000,
    destination_currency: "USDC",
    destination_amount_cents: 100_000,
    token_amount: "1000000000",
    transaction_date: sampleTime,
    status: "complete",
    from: "0x2222222222222222222222222222222222222222",
    token: sampleToken,
    ...sampleChain
  }
}
