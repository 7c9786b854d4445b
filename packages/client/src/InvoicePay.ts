/**
 * Paying members' invoices (issue 38): `invoices.prepare` reads each invoice, issues the batch by the invoices' ids
 * alone and checks the typed data pays what each invoice says is left (else it throws, and nothing is signed);
 * `payments.submit` signs and executes it, and `invoices.pay` is both at once.
 */
import type { PaymentsTypedDataMessage } from "@svc/domain/eip712"
import { tokenAmountOf } from "@svc/domain/payment"
import type { SvcOperations } from "./Operations.ts"
import { checkSigner, type PaymentTypedData, type PreparedPayment, type RequestSigner, refuse } from "./Prepared.ts"

/** What `invoices.pay` and `invoices.prepare` take: the paying team and the invoices (`iv-…`) to pay what is left of. */
export interface PayInvoicesRequest {
  readonly team: string
  readonly invoices: ReadonlyArray<string>
}

/** Issues the typed data paying what is left of each of `invoices` from `team`, now, and checks it. */
export const prepareInvoicePayment = async (
  operations: SvcOperations,
  signer: RequestSigner,
  request: PayInvoicesRequest
): Promise<PreparedPayment> => {
  const invoices = await Promise.all(
    request.invoices.map(async (id) => (await operations.invoices.get({ params: { invoice_nanoid: id } })).data)
  )
  const left = invoices.map((invoice) => invoice.amount_cents - invoice.paid_cents)
  const execution = {
    from: request.team,
    to: request.invoices.map((invoice_nanoid) => ({ invoice_nanoid })),
    pay_now: true,
    network: "arbitrum" as const
  }
  const issued = await operations.payments.create({ payload: execution })
  const bundle: PaymentTypedData = issued.data
  const entries = (bundle.typed_data as PaymentsTypedDataMessage).data?.payments
  const paysWhatIsLeft =
    entries !== undefined &&
    entries.length === left.length &&
    entries.every((entry, index) => BigInt(entry.amount) === BigInt(tokenAmountOf(left[index] ?? 0)))
  if (!paysWhatIsLeft) throw refuse("pay what the invoices say is left")
  await checkSigner(bundle, signer)
  const totalCents = left.reduce((sum, cents) => sum + cents, 0)
  const payees = invoices.map((invoice, index) => ({
    to: invoice.recipient_nanoid,
    amount_cents: left[index] ?? 0,
    invoice_description: `Invoice ${invoice.invoice_number}`,
    invoice: invoice.nanoid
  }))
  return { kind: "payments", bundle, totalCents, execution, payees }
}
