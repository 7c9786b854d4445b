/**
 * Executing signed payments (SPEC §4.6, PUT /v2/payments) at most once across replicas: a replay answers the first
 * result; past the settlement wait, the transaction in flight (202).
 */
import { Effect } from "effect"
import { ChainGateway } from "../chain/ChainGateway.ts"
import { TeamAccess } from "../membership/TeamAccess.ts"
import type { Caller } from "../user/Caller.ts"
import { executePayments } from "./PaymentExecution.ts"
import type { ExecutePaymentsRequest } from "./PaymentRequests.ts"

/** Executes the signed request (`payments.execute`); the steps are `PaymentExecution.ts`'s. */
export const executeSignedPayments = Effect.fn("Payments.execute")(function* (
  caller: Caller,
  body: ExecutePaymentsRequest
) {
  const { team } = yield* TeamAccess.use((access) => access.authorize(caller, body.from, "payments.execute"))
  yield* ChainGateway.required
  return yield* executePayments(team, body)
})
