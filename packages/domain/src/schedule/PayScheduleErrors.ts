/** What the pay schedule use cases refuse with. */
import { Effect, Schema } from "effect"
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

/** `first_pay_at` is before now: a schedule starts now or later. */
export class FirstPayInPast extends Schema.TaggedError<FirstPayInPast>()("FirstPayInPast", {
  first_pay_at: Schema.String,
  message: Schema.String.pipe(Schema.withConstructorDefault(Effect.succeed("first_pay_at must be now or later")))
}) {
  /** The API error code. */
  get errorCode(): ErrorCode {
    return "VALIDATION_ERROR"
  }
}

/** The schedule is completed or canceled already: there is nothing left to cancel. */
export class ScheduleNotCancelable extends Schema.TaggedError<ScheduleNotCancelable>()("ScheduleNotCancelable", {
  schedule: Schema.String,
  state: Schema.String,
  message: Schema.String
}) {
  /** The API error code. */
  get errorCode(): ErrorCode {
    return "INVALID_STATE_TRANSITION"
  }
}
