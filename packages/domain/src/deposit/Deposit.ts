/**
 * Deposits (DESIGN: Deposits; decision 0064): transfers of the settlement token into a team's account, as the deposit
 * follower reads them from the chain. Their ids come from chain facts, so reading the same log again never makes a
 * second deposit, and the events announcing them never repeat.
 */
import { Schema } from "effect"
import { type Hex, keccak256, toHex } from "viem"
import { Address, HexData } from "../Evm.ts"
import { uuidOfHex } from "../event/EventEnvelope.ts"
import { alphabet, DepositId, type EventId, TeamId } from "../Ids.ts"
import { unitsPerCent } from "../payment/Payment.ts"
import { DepositMachine } from "./DepositMachine.ts"

export { DepositMachine } from "./DepositMachine.ts"

/** Where a deposit stands: read, not yet deep enough; announced; or no longer on the canonical chain. */
export const DepositState = DepositMachine.State
export type DepositState = typeof DepositState.Type

/** From outside the service (`deposit.received`), or from another team's account (`token.transfer`). */
export const DepositKind = Schema.Literals(["received", "transfer"])
export type DepositKind = typeof DepositKind.Type

/** A stored deposit. */
export const Deposit = Schema.Struct({
  nanoid: DepositId,
  team_nanoid: TeamId,
  kind: DepositKind,
  amount_cents: Schema.Number,
  /** In token units (6 decimals), as a decimal string. */
  token_amount: Schema.String,
  from: Address,
  to: Address,
  transaction: HexData,
  block_number: Schema.Number,
  block_hash: HexData,
  log_index: Schema.Number,
  state: DepositState,
  created_at: Schema.String,
  updated_at: Schema.String
})
export type Deposit = typeof Deposit.Type

/** Twelve characters of the nanoid alphabet from a hash of `facts`. */
const bodyOf = (facts: string): string => {
  const digest = keccak256(toHex(facts)).slice(2)
  let body = ""
  for (let i = 0; i < 12; i++) body += alphabet[Number.parseInt(digest.slice(i * 2, i * 2 + 2), 16) % alphabet.length]
  return body
}

/** The id of the deposit a log makes: the same log, the same id. */
export const depositIdOf = (chainId: number, transaction: Hex, logIndex: number): DepositId =>
  `dp-${bodyOf(`${chainId}:${transaction.toLowerCase()}:${logIndex}`)}` as DepositId

/** The id of the event that announces (`kind`) a deposit: announced at most once per kind. */
export const depositEventIdOf = (deposit: DepositId, kind: string): EventId =>
  `ev-${bodyOf(`${deposit}:${kind}`)}` as EventId

/** A v4-shaped UUID from a hash of `facts`: the idempotency key of an event derived from chain facts. */
export const uuidOf = (facts: string): string => uuidOfHex(keccak256(toHex(facts)).slice(2, 34))

/** Token units (6 decimals) -> cents, rounded down (the payments' conversion). */
export const centsOfUnits = (units: bigint): number => Number(units / unitsPerCent())
