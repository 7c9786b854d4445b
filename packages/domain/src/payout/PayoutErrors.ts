/**
 * Why a payout address is refused (decision 0108), with the API code each maps to.
 */
import { Schema } from "effect"
import type { ErrorCode } from "../errors/ErrorCatalog.ts"

/** The address cannot receive a member's pay: one of the service's own contracts (the token would be lost). */
export class InvalidPayoutAddress extends Schema.TaggedError<InvalidPayoutAddress>()("InvalidPayoutAddress", {
  address: Schema.String,
  reason: Schema.String
}) {
  /** The API error code. */
  get errorCode(): ErrorCode {
    return "VALIDATION_ERROR"
  }
  override get message(): string {
    return `${this.address} cannot be a payout address: ${this.reason}`
  }
}

/** The report link is unknown, was used, expired, or names another change than the token's. */
export class PayoutReportInvalid extends Schema.TaggedError<PayoutReportInvalid>()("PayoutReportInvalid", {
  change: Schema.String
}) {
  /** The API error code. */
  get errorCode(): ErrorCode {
    return "PAYOUT_REPORT_INVALID"
  }
}

/** The change reported is not the member's last one: the later change's own mail reports that one. */
export class PayoutChangeSuperseded extends Schema.TaggedError<PayoutChangeSuperseded>()("PayoutChangeSuperseded", {
  change: Schema.String
}) {
  /** The API error code. */
  get errorCode(): ErrorCode {
    return "INVALID_STATE_TRANSITION"
  }
  override get message(): string {
    return "The payout address changed again since; report the later change from its own e-mail"
  }
}
