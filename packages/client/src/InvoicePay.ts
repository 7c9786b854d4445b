/**
 * `svc.invoices.pay`: pays members' invoices in one call (issue 38). It reads each invoice, issues the batch by the
 * invoices' ids alone, checks the typed data pays what each invoice says is left, signs it here and executes it.
 */
import type { TypedDataBundle } from "@svc/domain/eip712"
import { type ExecutePaymentsResponse, tokenAmountOf } from "@svc/domain/payment"
import type { PaymentResult, SvcError, SvcOperations } from "./Client.ts"

/** What `invoices.pay` needs of the client: its operations, and a signer of typed data. */
export interface InvoicePayer {
  readonly operations: SvcOperations
  readonly address: () => Promise<`0x${string}`>
  readonly signTypedData: (bundle: TypedDataBundle) => Promise<string>
  readonly refuse: (message: string) => SvcError
}

/** Pays what is left of each of `invoices` (iv-…) from `team`, now: one signed batch. */
export const payInvoicesWith =
  (payer: InvoicePayer) =>
  async (request: { readonly team: string; readonly invoices: ReadonlyArray<string> }): Promise<PaymentResult> => {
    const left = await Promise.all(
      request.invoices.map(async (id) => {
        const { data } = await payer.operations.invoices.get({ params: { invoice_nanoid: id } } as never)
        return data.amount_cents - data.paid_cents
      })
    )
    const body = {
      from: request.team,
      to: request.invoices.map((invoice_nanoid) => ({ invoice_nanoid })),
      pay_now: true,
      network: "arbitrum" as const
    }
    const issued = await payer.operations.payments.create({ payload: body } as never)
    const bundle = (issued as { data: TypedDataBundle }).data
    const entries = (bundle.typed_data as { data?: { payments?: ReadonlyArray<{ amount: string }> } }).data?.payments
    const paysWhatIsLeft =
      entries !== undefined &&
      entries.length === left.length &&
      entries.every((entry, index) => entry.amount === tokenAmountOf(left[index] ?? 0))
    if (!paysWhatIsLeft) {
      throw payer.refuse("the typed data the API issued does not pay what the invoices say: nothing was signed")
    }
    const signature = await payer.signTypedData(bundle)
    const executed = (await payer.operations.payments.execute({
      payload: { ...body, signer: await payer.address(), typed_data: bundle.typed_data, signature }
    } as never)) as unknown as { data: ExecutePaymentsResponse["data"] & { status?: string } }
    return {
      transaction: executed.data.transaction,
      payments: executed.data.payments,
      inFlight: executed.data.status === "in_flight"
    }
  }
