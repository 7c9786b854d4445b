/**
 * The invoice document as a PDF, laid out with pdfkit (decision 0105): a header with the number and status, both
 * parties, the lines and the total, and the payments that paid it with their transaction and block. Text is written
 * as text in the standard Helvetica fonts, so a reader (and a test) can search and extract it.
 */
import { formatCents, type InvoiceDocument, InvoiceRenderer } from "@svc/domain/invoice"
import { Effect, Layer } from "effect"
import PDFDocument from "pdfkit"

/** What pdfkit's document is. */
type Pdf = InstanceType<typeof PDFDocument>

const margin = 50
const pageWidth = 595.28 // A4, in points
const contentWidth = pageWidth - 2 * margin

/** Cp1252 beyond Latin-1, which the standard fonts also print. */
const cp1252Extras = new Set("€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ")

/**
 * The text as the standard fonts can print it: characters outside their encoding (Windows-1252) become `?`, control
 * characters a space, rather than garbage or nothing.
 */
export const printable = (text: string): string =>
  Array.from(text, (c) => {
    const code = c.codePointAt(0) ?? 0
    if (code < 0x20 || (code >= 0x7f && code < 0xa0)) return " "
    return code <= 0xff || cp1252Extras.has(c) ? c : "?"
  }).join("")

const statusLabel = {
  submitted: "Submitted, unpaid",
  partially_paid: "Partially paid",
  paid: "Paid",
  canceled: "Canceled by its author",
  rejected: "Rejected by the team"
} as const

/** A label and its value on one line. */
const field = (pdf: Pdf, label: string, value: string) => {
  pdf.font("Helvetica-Bold").text(`${label}: `, { continued: true }).font("Helvetica").text(printable(value))
}

/** The number, status, dates and amounts. */
const header = (pdf: Pdf, { invoice }: InvoiceDocument) => {
  pdf
    .font("Helvetica-Bold")
    .fontSize(20)
    .text(`Invoice ${printable(invoice.invoice_number)}`)
  pdf.moveDown(0.5).fontSize(10)
  field(pdf, "Status", statusLabel[invoice.state])
  field(pdf, "Issued", invoice.created_at.slice(0, 10))
  if (invoice.due_date !== null) field(pdf, "Due", invoice.due_date)
  field(pdf, "Reference", invoice.nanoid)
  if (invoice.reason !== undefined) field(pdf, "Reason for rejection", invoice.reason)
}

/** Who billed whom, side by side. */
const parties = (pdf: Pdf, document: InvoiceDocument) => {
  const top = pdf.moveDown(1).y
  const column = contentWidth / 2 - 10
  const party = (x: number, title: string, p: InvoiceDocument["from"]) => {
    pdf.font("Helvetica-Bold").fontSize(9).text(title, x, top, { width: column })
    pdf.font("Helvetica").fontSize(10).text(printable(p.name), { width: column })
    pdf.fontSize(8).text(p.nanoid, { width: column })
    for (const line of p.lines) pdf.text(printable(line), { width: column })
    return pdf.y
  }
  const bottom = Math.max(party(margin, "FROM", document.from), party(margin + column + 20, "BILLED TO", document.to))
  pdf.x = margin
  pdf.y = bottom
}

/** The lines, their amounts and the total. */
const lines = (pdf: Pdf, document: InvoiceDocument) => {
  const { invoice } = document
  pdf.moveDown(1.5).font("Helvetica").fontSize(10)
  if (invoice.role_description !== "") field(pdf, "Role", invoice.role_description)
  if (invoice.type === "time_entry" && invoice.invoice_description !== "") {
    field(pdf, "Description", invoice.invoice_description)
  }
  const amountX = margin + contentWidth - 110
  const row = (description: string, detail: string, amount: string, bold = false) => {
    const y = pdf.moveDown(0.4).y
    pdf.font(bold ? "Helvetica-Bold" : "Helvetica").fontSize(10)
    pdf.text(printable(description), margin, y, { width: amountX - margin - 10 })
    if (detail !== "")
      pdf
        .fontSize(8)
        .text(printable(detail), { width: amountX - margin - 10 })
        .fontSize(10)
    const after = pdf.y
    pdf.text(amount, amountX, y, { width: 110, align: "right" })
    pdf.x = margin
    pdf.y = Math.max(after, pdf.y)
  }
  pdf.moveDown(0.5)
  row("Description", "", "Amount (USD)", true)
  pdf
    .moveTo(margin, pdf.y + 2)
    .lineTo(margin + contentWidth, pdf.y + 2)
    .stroke()
  for (const line of document.lines) row(line.description, line.detail, formatCents(line.amount_cents))
  pdf
    .moveTo(margin, pdf.y + 4)
    .lineTo(margin + contentWidth, pdf.y + 4)
    .stroke()
  row("Total", "", `${formatCents(invoice.amount_cents)} ${invoice.currency}`, true)
  if (invoice.paid_cents > 0) {
    row("Paid", "", formatCents(invoice.paid_cents))
    row("Left to pay", "", formatCents(Math.max(0, invoice.amount_cents - invoice.paid_cents)))
  }
}

/** The payments that paid it, each with where the chain holds it. */
const payments = (pdf: Pdf, { invoice }: InvoiceDocument) => {
  if (invoice.payments.length === 0) return
  pdf.moveDown(1.5).font("Helvetica-Bold").fontSize(11).text("Payments", margin, pdf.y)
  for (const payment of invoice.payments) {
    pdf.moveDown(0.3).font("Helvetica").fontSize(9)
    pdf.text(
      `${payment.paid_at.slice(0, 10)}  ${payment.payment_nanoid}  ${formatCents(payment.amount_cents)} ${invoice.currency}`
    )
    pdf.fontSize(8).text(`Transaction ${payment.transaction}`, { lineBreak: false })
    pdf.text(`Block ${payment.block_number ?? "not known"}`)
  }
}

/** The document's bytes. */
export const renderPdf = (document: InvoiceDocument): Effect.Effect<Uint8Array> =>
  Effect.callback<Uint8Array>((resume) => {
    const { invoice } = document
    const pdf = new PDFDocument({
      size: "A4",
      margin,
      info: {
        Title: printable(`Invoice ${invoice.invoice_number}`),
        Author: printable(document.from.name),
        Subject: `${invoice.nanoid} to ${invoice.team_nanoid}`,
        CreationDate: new Date(invoice.created_at),
        ModDate: new Date(invoice.updated_at)
      }
    })
    const chunks: Array<Buffer> = []
    pdf.on("data", (chunk: Buffer) => chunks.push(chunk))
    pdf.on("end", () => resume(Effect.succeed(new Uint8Array(Buffer.concat(chunks)))))
    pdf.on("error", (error: unknown) => resume(Effect.die(error)))
    header(pdf, document)
    parties(pdf, document)
    lines(pdf, document)
    payments(pdf, document)
    pdf.end()
  })

/** The renderer. */
export const layer = Layer.succeed(InvoiceRenderer, InvoiceRenderer.of({ pdf: renderPdf }))
