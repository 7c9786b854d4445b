/**
 * The life of an issued request (decisions 0017, 0091): issued, executed once under a claim, recorded. The store writes
 * its state only as a move of this table, under the claim's fencing token, and refuses it unless the stored state is
 * still the one moved from.
 */
import { makeStateMachine } from "../StateMachine.ts"

/**
 * The issued-request machine.
 *
 * - `issued`: typed data handed out, not yet executed (deleted once expired unexecuted).
 * - `executing`: claimed by one holder, under a lease it renews while it works; its transaction may be in flight.
 * - `executed`: recorded with its settlement.
 *
 * `claim`: a signed request's execution begins (a new token). `release`: the chain refused it before spending its
 * salt; the signer may send it again. `takeOver`: its holder's lease lapsed; recovery takes it under a new token.
 * `record`: its settlement is recorded. `reopen`: the chain lost its transaction (a chain restored from an older
 * save): recovery sends it again under a new token.
 */
export const IssuedRequestMachine = makeStateMachine({
  name: "issued request",
  states: ["issued", "executing", "executed"],
  triggers: ["claim", "release", "takeOver", "record", "reopen"],
  transitions: {
    issued: { claim: "executing" },
    executing: { release: "issued", takeOver: "executing", record: "executed" },
    executed: { reopen: "executing" }
  }
})

/** Where an issued request stands. */
export type IssuedRequestState = typeof IssuedRequestMachine.State.Type
