/**
 * What the chain reports of pay schedules (contracts version 5): a schedule registered, an instalment paid, schedules
 * canceled, and a schedule as its account stores it.
 */
import type { Address, Hash, Hex } from "viem"
import type { Receipt } from "./Settlement.ts"

/** A signed schedule registered on its account. */
export interface ScheduleRegistration extends Receipt {
  readonly id: Hex
  readonly signer: Address
}

/** One payee paid by an instalment, read from the account's `InstalmentPaid` events. */
export interface InstalmentPayment {
  readonly recipient: Address
  readonly token: Address
  readonly amount: bigint
}

/** Instalment `n` of schedule `id` paid: each payee, in the schedule's order. */
export interface InstalmentSettlement extends Receipt {
  readonly id: Hex
  readonly n: number
  readonly payments: ReadonlyArray<InstalmentPayment>
}

/** Schedules canceled by the service's operators; no transaction when none was left to cancel. */
export interface ScheduleCancellation {
  readonly transactionHash?: Hash
  readonly canceled: ReadonlyArray<Hex>
}

/** A schedule as its account stores it; `active` is false once canceled or once its signer's authority was revoked. */
export interface ScheduleRecord {
  readonly id: Hex
  readonly active: boolean
  readonly signer: Address
  readonly token: Address
  readonly firstPayAt: bigint
  readonly count: number
  /** The instalments paid, by index. */
  readonly paid: ReadonlyArray<number>
}
