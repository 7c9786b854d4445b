/**
 * Executing signed payments (SPEC §4.6, PUT /v2/payments) at most once across replicas: a replay answers the first
 * result; past the settlement wait, the transaction in flight (202).
 */
import { Effect } from "effect"
import { ChainGateway } from "../chain/ChainGateway.ts"
import { InvoiceRepository } from "../invoice/InvoiceRepository.ts"
import { MemberBlocked } from "../membership/MembershipErrors.ts"
import { MembershipRepository } from "../membership/MembershipRepository.ts"
import { TeamAccess } from "../membership/TeamAccess.ts"
import type { Caller } from "../user/Caller.ts"
import { executePayments } from "./PaymentExecution.ts"
import { PaymentLedger } from "./PaymentLedger.ts"
import { type ExecutePaymentsRequest, isInvoiceEntry } from "./PaymentRequests.ts"

/**
 * A request that has not executed pays no member blocked since it was issued (decision 0107): refused, naming them.
 * One that executed already answers its result on replay, as ever.
 */
const refuseBlockedRecipients = Effect.fn("Payments.refuseBlockedRecipients")(function* (body: ExecutePaymentsRequest) {
  const outcome = yield* PaymentLedger.use((ledger) => ledger.outcome(body.typed_data.salt)).pipe(Effect.option)
  if (outcome._tag === "Some" && outcome.value.state === "executed") return
  const members = yield* MembershipRepository.use((m) => m.listTeam(body.from, { offset: 0, limit: undefined }))
  const blocked = new Set(members.members.filter((m) => m.block !== undefined).map((m) => m.user_nanoid as string))
  for (const entry of body.to) {
    // An invoice entry pays the invoice's author.
    const recipient = isInvoiceEntry(entry)
      ? yield* InvoiceRepository.use((invoices) => invoices.findById(entry.invoice_nanoid)).pipe(
          Effect.map((invoice) => invoice.recipient_nanoid as string),
          Effect.orElseSucceed(() => undefined)
        )
      : entry.to
    if (recipient !== undefined && blocked.has(recipient)) {
      return yield* new MemberBlocked({ team: body.from, user: recipient })
    }
  }
})

/** Executes the signed request (`payments.execute`); the steps are `PaymentExecution.ts`'s. */
export const executeSignedPayments = Effect.fn("Payments.execute")(function* (
  caller: Caller,
  body: ExecutePaymentsRequest
) {
  const { team } = yield* TeamAccess.use((access) => access.authorize(caller, body.from, "payments.execute"))
  yield* ChainGateway.required
  yield* refuseBlockedRecipients(body)
  return yield* executePayments(team, body)
})
