/** Issuing the typed data of a batch to members (SPEC §4.5), for the caller's wallet to sign: `pay_now` or an intent. */
import { Effect } from "effect"
import { TeamAccess } from "../membership/TeamAccess.ts"
import type { Caller } from "../user/Caller.ts"
import { issueBatch } from "./PaymentIssuance.ts"
import type { CreatePaymentsRequest } from "./PaymentRequests.ts"

/** The batch's typed data (`payments.create`); the steps are `PaymentIssuance.ts`'s. */
export const issuePayments = Effect.fn("Payments.issueBatch")(function* (caller: Caller, body: CreatePaymentsRequest) {
  const { team } = yield* TeamAccess.use((access) => access.authorize(caller, body.from, "payments.create"))
  return yield* issueBatch(team, caller, body)
})
