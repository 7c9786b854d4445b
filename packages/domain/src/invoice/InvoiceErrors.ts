/**
 * Why an invoice action is refused, each with its catalog code. Each changes nothing.
 */
import { Schema } from "effect"
import type { ErrorCode } from "../errors/ErrorCatalog.ts"

/** No invoice has this id, or the caller may not see it (another member's, another team's). */
export class InvoiceNotFound extends Schema.TaggedError<InvoiceNotFound>()("InvoiceNotFound", {
  nanoid: Schema.String
}) {
  /** The API error code. */
  get errorCode(): ErrorCode {
    return "INVOICE_NOT_FOUND"
  }
  override get message(): string {
    return "Invoice not found"
  }
}

/** The member already billed the team under this number. */
export class InvoiceNumberTaken extends Schema.TaggedError<InvoiceNumberTaken>()("InvoiceNumberTaken", {
  invoice_number: Schema.String
}) {
  /** The API error code. */
  get errorCode(): ErrorCode {
    return "INVOICE_NUMBER_TAKEN"
  }
  override get message(): string {
    return `You already billed this team under invoice number "${this.invoice_number}"; give each invoice its own`
  }
}

/** A time-entry invoice's amount disagrees with its entries, or an invoice's total is out of range. */
export class InvoiceAmountMismatch extends Schema.TaggedError<InvoiceAmountMismatch>()("InvoiceAmountMismatch", {
  message: Schema.String
}) {
  /** The API error code. */
  get errorCode(): ErrorCode {
    return "INVOICE_AMOUNT_MISMATCH"
  }
}

/** A payment entry names an invoice that cannot be paid: paid, canceled, rejected, being paid, or not the team's. */
export class InvoiceNotPayable extends Schema.TaggedError<InvoiceNotPayable>()("InvoiceNotPayable", {
  nanoid: Schema.String,
  message: Schema.String
}) {
  /** The API error code. */
  get errorCode(): ErrorCode {
    return "INVOICE_NOT_PAYABLE"
  }
}

/** The invoice's state does not allow this step (cancel a paid invoice, reject a canceled one, ...). */
export class InvoiceClosed extends Schema.TaggedError<InvoiceClosed>()("InvoiceClosed", {
  nanoid: Schema.String,
  message: Schema.String
}) {
  /** The API error code. */
  get errorCode(): ErrorCode {
    return "INVALID_STATE_TRANSITION"
  }
}
