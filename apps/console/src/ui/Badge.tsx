/** States as badges: a word, and a colour for what it means (done, moving, waiting, failed). */
import type { ReactNode } from "react"

type Tone = "good" | "moving" | "waiting" | "bad" | "neutral"

export const Badge = ({ tone, children }: { readonly tone: Tone; readonly children: ReactNode }) => (
  <span className={`badge ${tone === "neutral" ? "" : tone}`}>{children}</span>
)

const paymentTones: Record<string, Tone> = {
  complete: "good",
  processing: "moving",
  scheduled: "moving",
  intent: "waiting",
  failed: "bad",
  canceled: "neutral"
}

const paymentWords: Record<string, string> = {
  complete: "Complete",
  processing: "In flight",
  scheduled: "Due",
  intent: "Scheduled",
  failed: "Failed",
  canceled: "Canceled"
}

/** A payment's state: `processing` reads "In flight" until its transaction is final. */
export const PaymentStateBadge = ({ state }: { readonly state: string | undefined }) => (
  <Badge tone={paymentTones[state ?? ""] ?? "neutral"}>{paymentWords[state ?? ""] ?? state ?? "Unknown"}</Badge>
)

const deliveryTones: Record<string, Tone> = { succeeded: "good", pending: "moving", failed: "bad" }

/** A webhook delivery's state. */
export const DeliveryBadge = ({ status }: { readonly status: string }) => (
  <Badge tone={deliveryTones[status] ?? "neutral"}>{status.charAt(0).toUpperCase() + status.slice(1)}</Badge>
)

const invoiceTones: Record<string, Tone> = {
  submitted: "waiting",
  partially_paid: "moving",
  paid: "good",
  rejected: "bad",
  canceled: "neutral"
}

const invoiceWords: Record<string, string> = {
  submitted: "Submitted",
  partially_paid: "Partly paid",
  paid: "Paid",
  rejected: "Rejected",
  canceled: "Canceled"
}

/** An invoice's state (`invoice_status`). */
export const InvoiceStateBadge = ({ state }: { readonly state: string }) => (
  <Badge tone={invoiceTones[state] ?? "neutral"}>{invoiceWords[state] ?? state}</Badge>
)
