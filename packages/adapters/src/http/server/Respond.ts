/**
 * How a handler runs a use case: for the caller the access token names, with domain errors translated once
 * (`toApiError`), the result in the success envelope (SPEC §1).
 */
import type { CodedError } from "@svc/domain/errors"
import type { Caller } from "@svc/domain/user"
import { Effect } from "effect"
import { toApiError } from "../ApiError.ts"
import { CurrentUser } from "../Authentication.ts"

/** `{success: true, data}`. */
export const ok = <A>(data: A) => ({ success: true as const, data })

/** The use case run for the request's caller; its domain errors become API errors. */
export const asCaller = <A, E extends CodedError, R>(useCase: (caller: Caller) => Effect.Effect<A, E, R>) =>
  CurrentUser.use(useCase).pipe(Effect.mapError(toApiError))

/** The use case run for the request's caller, its result in the success envelope. */
export const respond = <A, E extends CodedError, R>(useCase: (caller: Caller) => Effect.Effect<A, E, R>) =>
  Effect.map(asCaller(useCase), ok)
