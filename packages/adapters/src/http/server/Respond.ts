/**
 * How a handler runs a use case: for the caller the access token names, with domain errors translated once
 * (`toApiError`), the result in the success envelope (SPEC §1).
 */

import { CurrentUser, toApiError } from "@svc/contract"
import type { CodedError } from "@svc/domain/errors"
import type { Caller } from "@svc/domain/user"
import { Effect } from "effect"
import { HttpServerResponse } from "effect/http"

/** `{success: true, data}`. */
export const ok = <A>(data: A) => ({ success: true as const, data })

/** The use case run for the request's caller; its domain errors become API errors. */
export const asCaller = <A, E extends CodedError, R>(useCase: (caller: Caller) => Effect.Effect<A, E, R>) =>
  CurrentUser.use(useCase).pipe(Effect.mapError(toApiError))

/** The use case run for the request's caller, its result in the success envelope. */
export const respond = <A, E extends CodedError, R>(useCase: (caller: Caller) => Effect.Effect<A, E, R>) =>
  Effect.map(asCaller(useCase), ok)

/**
 * The use case's result in the success envelope as JSON, not walked through the endpoint's schema again: for the
 * long lists the domain builds from records it decoded (a 100-user team list spends a sixth of its time in that walk).
 * Only for results whose type is already their JSON form (no dates, options or transformations inside); the typed
 * client and the contract tests still decode them against the schema.
 */
export const respondJson = <A, E extends CodedError, R>(useCase: (caller: Caller) => Effect.Effect<A, E, R>) =>
  Effect.map(asCaller(useCase), (data) => HttpServerResponse.jsonUnsafe(ok(data)))

/**
 * The result of a use case that executes a signed request: 200 in the success envelope once its transaction is final;
 * 202 `{success, data: {...result, status: "in_flight"}}` while it is sent and not final yet (decision 0061), after
 * which the same request answers 200.
 */
export const respondSettled = <A extends object, E extends CodedError, R>(
  useCase: (
    caller: Caller
  ) => Effect.Effect<
    { readonly _tag: "Executed"; readonly result: A } | { readonly _tag: "InFlight"; readonly result: A },
    E,
    R
  >
) =>
  Effect.map(asCaller(useCase), (settled) => {
    switch (settled._tag) {
      case "Executed":
        return HttpServerResponse.jsonUnsafe(ok(settled.result))
      case "InFlight":
        return HttpServerResponse.jsonUnsafe(ok({ ...settled.result, status: "in_flight" }), { status: 202 })
    }
  })
