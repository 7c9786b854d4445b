/**
 * How the client fails: one error class, `SvcError`, with the API's code, or one of the client's own three.
 */
import { statusOfApiError } from "@svc/contract"
import type { ErrorCode } from "@svc/domain/errors"
import { Cause, Effect, Exit, Schema } from "effect"

/**
 * An `SvcError`'s code: the API's `error_code` (`TEAM_NOT_FOUND`, `INSUFFICIENT_BALANCE`, ...; every code of the API's
 * catalog), or one of the client's: `VALIDATION_ERROR` for a request it refused to send, `NETWORK_ERROR` when the API
 * could not be reached, `UNEXPECTED_RESPONSE` for an answer the contract does not describe.
 */
export type SvcErrorCode = ErrorCode | "NETWORK_ERROR" | "UNEXPECTED_RESPONSE"

/** An answer of the API that is not a success, a request the client would not send, or no answer at all. */
export class SvcError extends Error {
  override readonly name = "SvcError"
  /**
   * The API's `error_code`; `VALIDATION_ERROR` also for a request the client refused before sending it (a malformed
   * id, a missing field), `NETWORK_ERROR` when the API could not be reached, `UNEXPECTED_RESPONSE` for an answer the
   * contract does not describe (or typed data that does not pay what was asked).
   */
  readonly errorCode: SvcErrorCode
  /** The HTTP status, when the API answered. */
  readonly status: number | undefined
  constructor(errorCode: SvcErrorCode, message: string, status?: number) {
    super(message)
    this.errorCode = errorCode
    this.status = status
  }
}

/** An answer the client could not read with the contract's schemas. */
class UnreadableAnswer {
  readonly _tag = "UnreadableAnswer"
  readonly message: string
  constructor(message: string) {
    this.message = message
  }
}

/**
 * Marks a failure to read an answer, so that a schema error left over is the request's own: the HTTP client writes
 * the request with the same schemas before it sends anything.
 */
export const readingAnswers = (effect: Effect.Effect<unknown, unknown, unknown>) =>
  Effect.mapError(effect, (error) => (Schema.isSchemaError(error) ? new UnreadableAnswer(error.message) : error))

/** Runs a client call: its success, or an `SvcError` naming the API's code or the client's. */
export const run = <A>(effect: Effect.Effect<A, unknown>): Promise<A> =>
  Effect.runPromiseExit(effect).then((exit) => {
    if (Exit.isSuccess(exit)) return exit.value
    const squashed = Cause.squash(exit.cause)
    // A failed sign-in on the way (the token asked for as the request is sent) is already an SvcError.
    if (squashed instanceof SvcError) throw squashed
    if (squashed instanceof UnreadableAnswer) throw new SvcError("UNEXPECTED_RESPONSE", squashed.message)
    if (Schema.isSchemaError(squashed)) throw new SvcError("VALIDATION_ERROR", `Invalid request: ${squashed.message}`)
    const error = squashed as { error_code?: ErrorCode; data?: unknown; _tag?: string; message?: string }
    if (typeof error?.error_code === "string") {
      throw new SvcError(
        error.error_code,
        typeof error.data === "string" ? error.data : error.error_code,
        statusOfApiError(error as never)
      )
    }
    if (error?._tag === "HttpClientError" || error?._tag === "RequestError") {
      throw new SvcError("NETWORK_ERROR", error.message ?? "the API could not be reached")
    }
    throw new SvcError("UNEXPECTED_RESPONSE", error?.message ?? String(error))
  })
