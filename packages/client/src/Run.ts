/**
 * How the client turns a call of the Effect client into a promise: its success, or an `SvcError` that names the API's
 * code.
 */
import { statusOfApiError } from "@svc/contract"
import type { ErrorCode } from "@svc/domain/errors"
import { Cause, Effect, Exit } from "effect"

/** An answer of the API that is not a success, or no answer at all (`NETWORK_ERROR`). */
export class SvcError extends Error {
  override readonly name = "SvcError"
  /**
   * The API's `error_code`; `NETWORK_ERROR` when it could not be reached, `UNEXPECTED_RESPONSE` for a request or an answer the
   * contract does not describe (or typed data that does not pay what was asked).
   */
  readonly errorCode: ErrorCode | "NETWORK_ERROR" | "UNEXPECTED_RESPONSE"
  /** The HTTP status, when the API answered. */
  readonly status: number | undefined
  constructor(errorCode: SvcError["errorCode"], message: string, status?: number) {
    super(message)
    this.errorCode = errorCode
    this.status = status
  }
}

/** Runs a client call: its success, or an `SvcError` naming the API's code. */
export const run = <A>(effect: Effect.Effect<A, unknown>): Promise<A> =>
  Effect.runPromiseExit(effect).then((exit) => {
    if (Exit.isSuccess(exit)) return exit.value
    const squashed = Cause.squash(exit.cause)
    // A failed sign-in on the way (the token asked for as the request is sent) is already an SvcError.
    if (squashed instanceof SvcError) throw squashed
    const error = squashed as {
      error_code?: ErrorCode
      data?: unknown
      _tag?: string
      message?: string
    }
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
