/**
 * What the events' payloads share: the token a transfer moves, and where the chain holds it. Its own module, so that
 * every payload module (payments, payroll, deposits) imports it without importing one another.
 */
import { Schema } from "effect"
import { Address } from "../Evm.ts"

/** The token a payment moves. */
export const TokenInfo = Schema.Struct({
  address: Address,
  name: Schema.String,
  symbol: Schema.String,
  decimals: Schema.Int
})
export type TokenInfo = typeof TokenInfo.Type

/** Where on chain a payment moved: the network, the transaction and the block that included it. */
export const ChainFacts = Schema.Struct({
  network: Schema.String,
  chain_id: Schema.Int,
  transaction_hash: Schema.String,
  block_number: Schema.Int
})
export type ChainFacts = typeof ChainFacts.Type
