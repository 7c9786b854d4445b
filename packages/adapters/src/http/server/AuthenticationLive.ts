/**
 * The server side of bearer authentication: verifies the JWT (or reuses the idempotency middleware's verdict for it)
 * and provides the caller.
 */

import { Authentication, apiError, CurrentUser, type Unauthorized } from "@svc/contract"
import { UserRepository } from "@svc/domain/user"
import { Effect, Layer, Option, Redacted } from "effect"
import { AccessTokens } from "../AccessTokens.ts"
import { verifyOnce } from "./VerifiedToken.ts"

/** Missing, malformed, expired, foreign-key and `alg: none` tokens, and tokens naming no user, all answer 401. */
export const AuthenticationLive = Layer.effect(
  Authentication,
  Effect.gen(function* () {
    const tokens = yield* AccessTokens
    const users = yield* UserRepository
    return Authentication.of({
      bearer: (httpEffect, { credential }) =>
        Effect.gen(function* () {
          const token = Redacted.value(credential)
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
          return yield* Effect.provideService(httpEffect, CurrentUser, { nanoid: claims.sub, wallet: claims.wallet })
        })
    })
  })
)
