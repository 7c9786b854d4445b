/**
 * The life of a deposit (decisions 0064, 0091): read from the chain, announced once deep enough, withdrawn when a
 * reorganisation takes it away. The ledger writes a deposit's state only as a move of this table, under the
 * follower's fencing token, and refuses it unless the stored state is still the one moved from.
 */
import { makeStateMachine } from "../StateMachine.ts"

/**
 * The deposit machine.
 *
 * - `pending`: read in a block, not yet `CHAIN_CONFIRMATIONS` deep.
 * - `confirmed`: deep enough; announced (`deposit.received`, `token.transfer`).
 * - `reorged`: no longer on the canonical chain: dropped unannounced, or withdrawn (`deposit.received`, `reverted`).
 *
 * `confirm`: deep enough on the canonical chain. `reorganise`: its block is no longer the chain's. `read`: the
 * follower read its log (again, after a reorganisation, possibly in another block).
 */
export const DepositMachine = makeStateMachine({
  name: "deposit",
  states: ["pending", "confirmed", "reorged"],
  triggers: ["read", "confirm", "reorganise"],
  transitions: {
    pending: { read: "pending", confirm: "confirmed", reorganise: "reorged" },
    confirmed: { reorganise: "reorged" },
    reorged: { read: "pending" }
  }
})
