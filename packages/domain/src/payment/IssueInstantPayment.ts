/** Issuing the typed data of an instant payment to an e-mail, into the escrow (SPEC §4.7). */
import { Effect } from "effect"
import { TeamAccess } from "../membership/TeamAccess.ts"
import type { Caller } from "../user/Caller.ts"
import { issueInstant } from "./PaymentIssuance.ts"
import type { InstantPaymentRequest } from "./PaymentRequests.ts"

/** The instant payment's typed data (`payments.create`); the steps are `PaymentIssuance.ts`'s. */
export const issueInstantPayment = Effect.fn("Payments.issueInstant")(function* (
  caller: Caller,
  body: InstantPaymentRequest
) {
  const { team } = yield* TeamAccess.use((access) => access.authorize(caller, body.from, "payments.create"))
  return yield* issueInstant(team, caller, body)
})
