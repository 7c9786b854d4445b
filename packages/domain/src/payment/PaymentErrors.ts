/**
 * Why issuing, executing or reading payments is refused, beyond the signed-request and chain errors (`eip712/`,
 * `chain/`), each with its catalog code.
 */
import { Effect, Schema } from "effect"
import { type ErrorCode, messageField } from "../errors/ErrorCatalog.ts"

/** A recipient the batch cannot pay: not a user nanoid, or not a member of the team. */
export class InvalidRecipient extends Schema.TaggedError<InvalidRecipient>()("InvalidRecipient", {
  message: messageField("INVALID_RECIPIENT")
}) {
  /** The API error code. */
  get errorCode(): ErrorCode {
    return "INVALID_RECIPIENT"
  }
}

/** The team has no svc account deployed yet, so nothing can be paid from it. */
export class TeamAccountMissing extends Schema.TaggedError<TeamAccountMissing>()("TeamAccountMissing", {
  team: Schema.String,
  message: Schema.String.pipe(Schema.withConstructorDefault(Effect.succeed("The team has no svc account yet")))
}) {
  /** The API error code. */
  get errorCode(): ErrorCode {
    return "INVALID_STATE_TRANSITION"
  }
}

/** The PUT body does not repeat the one the typed data was issued for (or names another team). */
export class ExecutionBodyMismatch extends Schema.TaggedError<ExecutionBodyMismatch>()("ExecutionBodyMismatch", {
  salt: Schema.String,
  message: Schema.String.pipe(
    Schema.withConstructorDefault(Effect.succeed("The body differs from the one the typed data was issued for"))
  )
}) {
  /** The API error code. */
  get errorCode(): ErrorCode {
    return "TYPED_DATA_MISMATCH"
  }
}

/**
 * Another holder executes this salt under a live claim and has sent nothing yet: send the request again shortly for
 * its result (decision 0093). Never `ALREADY_EXECUTED`, which is said only of a request the chain or the ledger shows
 * executed.
 */
export class ExecutionInProgress extends Schema.TaggedError<ExecutionInProgress>()("ExecutionInProgress", {
  salt: Schema.String,
  message: messageField("EXECUTION_IN_PROGRESS")
}) {
  /** The API error code. */
  get errorCode(): ErrorCode {
    return "EXECUTION_IN_PROGRESS"
  }
}

/** The nanoid names nothing whose balance the service shows (a team without an account, a company). */
export class BalanceNotFound extends Schema.TaggedError<BalanceNotFound>()("BalanceNotFound", {
  nanoid: Schema.String,
  message: Schema.String
}) {
  /** The API error code. */
  get errorCode(): ErrorCode {
    return "NOT_FOUND"
  }
}

/** The payments query's cursor is not one this query answered (edited, truncated, or from other filters). */
export class InvalidPaymentsCursor extends Schema.TaggedError<InvalidPaymentsCursor>()("InvalidPaymentsCursor", {
  message: Schema.String.pipe(
    Schema.withConstructorDefault(
      Effect.succeed("The cursor is not one this query answered; start again without it, with the same filters")
    )
  )
}) {
  /** The API error code. */
  get errorCode(): ErrorCode {
    return "VALIDATION_ERROR"
  }
}

/** Only an intent not yet taken for execution can be canceled: this payment is past that (or never was one). */
export class IntentNotCancelable extends Schema.TaggedError<IntentNotCancelable>()("IntentNotCancelable", {
  nanoid: Schema.String,
  state: Schema.String,
  message: Schema.String
}) {
  /** The API error code. */
  get errorCode(): ErrorCode {
    return "INVALID_STATE_TRANSITION"
  }
}
