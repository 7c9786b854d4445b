/** Documents people read: the invoice as a PDF (decision 0105). */
export * as PdfInvoiceRenderer from "./PdfInvoiceRenderer.ts"
