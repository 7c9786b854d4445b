/**
 * `svc.invoices.pay`: pays members' invoices in one call (issue 38). It reads each invoice, issues the batch by the
 * invoices' ids alone, checks the typed data pays what each invoice says is left, signs it here and executes it.
 */
import type { TypedDataBundle } from "@svc/domain/eip712"
import { tokenAmountOf } from "@svc/domain/payment"
import type { PaymentResult } from "./Client.ts"
import type { SvcOperations } from "./Operations.ts"
import { SvcError } from "./SvcError.ts"

/** What `invoices.pay` takes: the paying team and the invoices (`iv-…`) to pay what is left of. */
export interface PayInvoicesRequest {
  readonly team: string
  readonly invoices: ReadonlyArray<string>
}

/** What `invoices.pay` needs of the client: its operations, and a signer of typed data. */
interface InvoicePayer {
  readonly operations: SvcOperations
  readonly address: () => Promise<`0x${string}`>
  readonly signTypedData: (bundle: TypedDataBundle) => Promise<string>
}

/** Pays what is left of each of `invoices` from `team`, now: one signed batch. */
export const payInvoicesWith =
  (payer: InvoicePayer) =>
  async (request: PayInvoicesRequest): Promise<PaymentResult> => {
    const left = await Promise.all(
      request.invoices.map(async (id) => {
        const { data } = await payer.operations.invoices.get({ params: { invoice_nanoid: id } })
        return data.amount_cents - data.paid_cents
      })
    )
    const body = {
      from: request.team,
      to: request.invoices.map((invoice_nanoid) => ({ invoice_nanoid })),
      pay_now: true,
      network: "arbitrum" as const
    }
    const issued = await payer.operations.payments.create({ payload: body })
    const bundle = issued.data as TypedDataBundle
    const entries = (bundle.typed_data as { data?: { payments?: ReadonlyArray<{ amount: string }> } }).data?.payments
    const paysWhatIsLeft =
      entries !== undefined &&
      entries.length === left.length &&
      entries.every((entry, index) => entry.amount === tokenAmountOf(left[index] ?? 0))
    if (!paysWhatIsLeft) {
      throw new SvcError(
        "UNEXPECTED_RESPONSE",
        "the typed data the API issued does not pay what the invoices say: nothing was signed"
      )
    }
    const signature = await payer.signTypedData(bundle)
    const executed = await payer.operations.payments.execute({
      payload: { ...body, signer: await payer.address(), typed_data: issued.data.typed_data, signature }
    })
    return {
      transaction: executed.data.transaction,
      payments: executed.data.payments,
      inFlight: "status" in executed.data && executed.data.status === "in_flight"
    }
  }
