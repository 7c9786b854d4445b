/**
 * The life of one journaled version of a relayer's transaction (decisions 0052, 0091): the journal writes a status only
 * as a move of this table from the status it read, and refuses it unless the stored status is still that one.
 */
import { makeStateMachine } from "../StateMachine.ts"

/**
 * The transaction machine.
 *
 * - `signed`: journaled, not yet handed to a node.
 * - `sent`: a node took it, or may have.
 * - `included`: seen in a block, fewer than the confirmations needed deep.
 * - `confirmed`: the confirmations deep: final for the service (a reorganisation deeper than them may still undo it).
 * - `replaced`: another version of its nonce superseded it or was mined instead (it may yet be the one mined, after a
 *   reorganisation).
 * - `failed`: refused outright, or its nonce was taken by a transaction the journal did not see. Terminal.
 *
 * `send`: handed to a node (again). `mine`: seen in a block (again, or in another block); `confirm`: deep enough.
 * `supersede`: another version of the nonce was mined, or replaces it. `reorganise`: the block that held it is no
 * longer the chain's: in flight again, only under the key's monitor lease. `fail`: it can never be mined.
 */
export const TransactionMachine = makeStateMachine({
  name: "transaction",
  states: ["signed", "sent", "included", "confirmed", "replaced", "failed"],
  triggers: ["send", "mine", "confirm", "supersede", "reorganise", "fail"],
  transitions: {
    signed: { send: "sent", mine: "included", confirm: "confirmed", supersede: "replaced", fail: "failed" },
    sent: { mine: "included", confirm: "confirmed", supersede: "replaced", fail: "failed" },
    included: { mine: "included", confirm: "confirmed", supersede: "replaced", reorganise: "sent" },
    confirmed: { mine: "included", confirm: "confirmed", supersede: "replaced", reorganise: "sent" },
    replaced: { mine: "included", confirm: "confirmed" },
    failed: {}
  }
})
