/**
 * The server side of bearer authentication: verifies the JWT (or reuses the idempotency middleware's verdict for it)
 * and provides the caller.
 */

import { Authentication, apiError, CurrentUser, type Unauthorized } from "@svc/contract"
import { type Caller, UserRepository } from "@svc/domain/user"
import { Effect, Layer, Option, Redacted } from "effect"
import { AccessTokens } from "../AccessTokens.ts"
import { verifyOnce } from "./VerifiedToken.ts"

/**
 * The caller a bearer token names. Missing, malformed, expired, foreign-key and `alg: none` tokens, and tokens naming
 * no user, all fail with 401.
 */
export const callerOfToken = Effect.gen(function* () {
  const tokens = yield* AccessTokens
  const users = yield* UserRepository
  return (token: string): Effect.Effect<Caller, Unauthorized> =>
    Effect.gen(function* () {
      if (token === "") return yield* Effect.fail(apiError("UNAUTHORIZED") as Unauthorized)
      const claims = yield* verifyOnce(tokens, token).pipe(
        Effect.mapError(
          (refused) =>
            (refused.reason === "expired"
              ? apiError("JWT_EXPIRED")
              : apiError("UNAUTHORIZED", "The access token is invalid")) as Unauthorized
        )
      )
      // A valid token whose user is gone (or never was) opens nothing.
      if (Option.isNone(yield* users.findById(claims.sub))) {
        return yield* Effect.fail(apiError("UNAUTHORIZED", "The access token names no user") as Unauthorized)
      }
      return { nanoid: claims.sub, wallet: claims.wallet }
    })
})

/** Bearer authentication: the caller the token names (`callerOfToken`) is the request's `CurrentUser`. */
export const AuthenticationLive = Layer.effect(
  Authentication,
  Effect.map(callerOfToken, (callerOf) =>
    Authentication.of({
      bearer: (httpEffect, { credential }) =>
        Effect.flatMap(callerOf(Redacted.value(credential)), (caller) =>
          Effect.provideService(httpEffect, CurrentUser, caller)
        )
    })
  )
)
