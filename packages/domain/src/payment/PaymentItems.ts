/**
 * Payments as the query shows them (SPEC §2.3): recipient, payer, invoice and payment objects, with the profiles of
 * the users involved and the members' invoices they pay read in one go.
 */
import { Effect } from "effect"
import type { UserId } from "../Ids.ts"
import type { Invoice } from "../invoice/Invoice.ts"
import { InvoiceRepository } from "../invoice/InvoiceRepository.ts"
import { displayNameOf, type User } from "../user/User.ts"
import { UserRepository } from "../user/UserRepository.ts"
import type { Payment } from "./Payment.ts"
import type { PaymentItem } from "./PaymentItem.ts"

const noAddress = { country: "", state: "", city: "", line_1: "", line_2: "", zip_code: "" }

const recipientOf = (payment: Payment, user: User | undefined): PaymentItem["recipient"] => ({
  nanoid: payment.recipient_nanoid ?? "",
  svcid: user?.svcid ?? "",
  avatar: user?.avatar ?? "",
  first_name: user?.first_name ?? "",
  middle_name: user?.middle_name ?? "",
  last_name: user?.last_name ?? "",
  company_name: "",
  email: user?.email ?? payment.recipient_email ?? "",
  address:
    user === undefined
      ? noAddress
      : {
          country: user.address.country,
          state: user.address.state,
          city: user.address.city,
          line_1: user.address.line_1,
          line_2: user.address.line_2,
          zip_code: user.address.zip_code
        }
})

/** The invoice of a payment made without one: made up from the payment, marked `synthesized`. */
const synthesizedInvoiceOf = (payment: Payment): PaymentItem["invoice"] => {
  const invoice = payment.invoice
  return {
    amount_cents: payment.amount_cents,
    documents_ids: [],
    group_nanoid: payment.group_nanoid,
    group_onchain_id: payment.group_onchain_id,
    hourly_rate_usd_cents: 0,
    invoice_number: payment.invoice_nanoid,
    invoice_status: "draft",
    is_aor: false,
    nanoid: payment.invoice_nanoid,
    payer_nanoid: payment.payer_nanoid,
    recipient_nanoid: payment.recipient_nanoid ?? "",
    pay_intent_time: payment.pay_at_time,
    svc_sow: invoice.svc_sow,
    time_entries: [],
    created_at: payment.created_at,
    updated_at: payment.updated_at,
    external_sow_url: invoice.external_sow_url,
    invoice_description: invoice.invoice_description,
    payment_details: invoice.payment_details,
    role_description: invoice.role_description,
    services_description: invoice.services_description,
    sow_document_nanoid: "",
    reason_id: invoice.reason_id ?? null,
    subscription_fee_metadata: null,
    synthesized: true,
    currency: payment.currency_symbol,
    type: "flat",
    flat_type: "service",
    due_date: null
  }
}

/** The item's invoice: the member's invoice the payment pays, or a synthesized one. */
const invoiceOfPayment = (payment: Payment, invoice: Invoice | undefined): PaymentItem["invoice"] =>
  invoice === undefined
    ? synthesizedInvoiceOf(payment)
    : {
        ...synthesizedInvoiceOf(payment),
        amount_cents: invoice.amount_cents,
        hourly_rate_usd_cents: invoice.hourly_rate_usd_cents,
        invoice_number: invoice.invoice_number,
        invoice_status: invoice.state,
        recipient_nanoid: invoice.recipient_nanoid,
        svc_sow: false,
        time_entries: invoice.time_entries,
        created_at: invoice.created_at,
        updated_at: invoice.updated_at,
        external_sow_url: "",
        invoice_description: invoice.invoice_description,
        payment_details: "",
        role_description: invoice.role_description,
        services_description: "",
        reason_id: null,
        synthesized: false,
        currency: invoice.currency,
        type: invoice.type,
        flat_type: invoice.flat_type,
        due_date: invoice.due_date
      }

/** One item of `data.items`. */
const paymentItemOf = (
  payment: Payment,
  users: ReadonlyMap<UserId, User>,
  invoices: ReadonlyMap<string, Invoice>
): PaymentItem => {
  const payer = users.get(payment.payer_nanoid)
  return {
    recipient: recipientOf(
      payment,
      payment.recipient_nanoid === undefined ? undefined : users.get(payment.recipient_nanoid)
    ),
    payer: {
      nanoid: payment.payer_nanoid,
      svcid: payer?.svcid ?? "",
      avatar: payer?.avatar ?? "",
      name: payer === undefined ? "" : displayNameOf(payer)
    },
    invoice: invoiceOfPayment(payment, invoices.get(payment.invoice_nanoid)),
    payment: {
      creation_transaction: payment.creation_transaction ?? "",
      process_transaction: payment.process_transaction ?? "",
      group_onchain_id: payment.group_onchain_id,
      onchain_id: payment.onchain_id,
      invoice_nanoid: payment.invoice_nanoid,
      nanoid: payment.nanoid,
      payment_group_nanoid: payment.group_nanoid,
      pay_at_time: payment.pay_at_time,
      token_amount: payment.token_amount,
      amount_cents: payment.amount_cents,
      currency_symbol: payment.currency_symbol,
      token_decimals: payment.token_decimals,
      valid_minutes: payment.valid_minutes,
      created_at: payment.created_at,
      updated_at: payment.updated_at,
      v1_metadata: null,
      state: payment.state,
      pay_schedule_nanoid: payment.schedule_nanoid ?? null,
      instalment: payment.instalment ?? null
    }
  }
}

/** The items of `payments`, in their order. */
export const paymentItemsOf = Effect.fn("PaymentItems.paymentItemsOf")(function* (payments: ReadonlyArray<Payment>) {
  const ids = new Set<UserId>()
  for (const p of payments) {
    ids.add(p.payer_nanoid)
    if (p.recipient_nanoid !== undefined) ids.add(p.recipient_nanoid)
  }
  const users = yield* UserRepository.use((u) => u.findByIds([...ids]))
  const byId = new Map(users.map((u) => [u.nanoid, u]))
  const invoiceIds = [...new Set(payments.flatMap((p) => (p.pays_invoice === true ? [p.invoice_nanoid] : [])))]
  const invoices = yield* InvoiceRepository.use((r) => r.findByIds(invoiceIds))
  const invoiceById = new Map<string, Invoice>(invoices.map((i) => [i.nanoid, i]))
  return payments.map((p) => paymentItemOf(p, byId, invoiceById))
})
