/**
 * What the chain reports back: settled requests, each payment's outcome, intents, deposits and the deployed suite.
 */
import type { Address, Hash, Hex } from "viem"

/** The contracts one deployment of svc uses. */
export interface SuiteAddresses {
  readonly forwarder: Address
  readonly escrow: Address
  /** The settlement token: USDC on Arbitrum One, the test USDC in embedded mode. */
  readonly token: Address
}

/** What happened to one payment of a settled request, read from the account's events. */
export interface PaymentOutcome {
  readonly id: Hex
  readonly groupID: Hex
  readonly outcome: "paid" | "intent_registered" | "intent_executed" | "escrowed"
  readonly token: Address
  /** The payee; for `escrowed`, the escrow contract. */
  readonly recipient: Address
  readonly amount: bigint
  /** Only for `escrowed`: keccak256 of the recipient's lower-cased e-mail. */
  readonly claimId?: Hex
  /** Only for `intent_registered`: the window in which anyone may execute it (unix seconds). */
  readonly payAtTime?: bigint
  readonly validUntil?: bigint
}

/** A transaction the chain included and that succeeded. */
export interface Receipt {
  readonly transactionHash: Hash
  readonly blockNumber: bigint
  readonly gasUsed: bigint
}

/** A settled payments request or intent execution: one outcome per payment, in request order. */
export interface Settlement extends Receipt {
  readonly payments: ReadonlyArray<PaymentOutcome>
}

/** A settled manager request: the roles granted. */
export interface RolesSettlement extends Receipt {
  readonly grants: ReadonlyArray<{ readonly role: string; readonly account: Address }>
}

/**
 * Authority ended on an account by one of the service's operators (decisions 0020, 0060): each role cleared (`team_admin`,
 * `team_finance_admin`, `team_viewer`) or `owner` for the ownership. No transaction when there was nothing to end.
 */
export interface Revocation {
  readonly transactionHash?: Hash
  readonly revoked: ReadonlyArray<{ readonly role: string; readonly account: Address }>
}

/** An account created by the forwarder (or found already there). */
export interface AccountCreation {
  readonly account: Address
  readonly owner: Address
  /** Absent when the account already existed. */
  readonly transactionHash?: Hash
}

/** An intent as the account stores it. */
export interface IntentRecord {
  readonly id: Hex
  readonly state: "registered" | "executed"
  readonly groupID: Hex
  readonly token: Address
  readonly recipient: Address
  readonly amount: bigint
  readonly payAtTime: bigint
  readonly validUntil: bigint
}

/** Tokens received by an account (any ERC-20 `Transfer` to it, from outside or from another account). */
export interface Deposit {
  readonly account: Address
  readonly token: Address
  readonly from: Address
  readonly amount: bigint
  readonly transactionHash: Hash
  readonly blockNumber: bigint
  readonly logIndex: number
}

/** One `Transfer` log of the settlement token, with the block that holds it (for the deposit follower). */
export interface TokenTransfer {
  readonly from: Address
  readonly to: Address
  readonly amount: bigint
  readonly transactionHash: Hash
  readonly blockNumber: bigint
  readonly blockHash: Hash
  readonly logIndex: number
}

/** Funds released from the e-mail escrow to the claimer's account. */
export interface EscrowRelease extends Receipt {
  readonly claimId: Hex
  readonly to: Address
  readonly amount: bigint
}

/** How the relayer stands: its gas, what it has in flight, and whether its gas is below the configured minimum. */
export interface RelayerHealth {
  readonly address: Address
  /** Its native balance, in wei. */
  readonly balance: bigint
  /** Below `RELAYER_MIN_BALANCE_WEI`: the process cannot be trusted to pay for much longer. */
  readonly low: boolean
  /** Journaled transactions not final yet. */
  readonly pending: number
  /** Its transactions mined so far: the next nonce the chain expects from it. */
  readonly nonce: number
  /** How long the oldest of them has been out (ms), when there is one. */
  readonly oldestPendingMillis?: number | undefined
}
