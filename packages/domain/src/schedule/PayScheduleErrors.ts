/** What the pay schedule use cases refuse with. */
import { Schema } from "effect"
import { type ErrorCode, messageField } from "../errors/ErrorCatalog.ts"

/** No pay schedule with this nanoid in a team the caller may see. */
export class PayScheduleNotFound extends Schema.TaggedError<PayScheduleNotFound>()("PayScheduleNotFound", {
  schedule: Schema.String,
  message: messageField("PAY_SCHEDULE_NOT_FOUND")
}) {
  /** The API error code. */
  get errorCode(): ErrorCode {
    return "PAY_SCHEDULE_NOT_FOUND"
  }
}
