/**
 * `GET /v2/auth/siwe` and `POST /v2/auth/verify` (SPEC §5) over the domain's `SignIn`: a single-use nonce per
 * message, then a JWT for the user whose wallet signed it (an unknown wallet becomes a new user, DESIGN §5, whose
 * wallet is checked against others' payout addresses: decision 0109). `POST /v2/auth/refresh` renews a valid token of
 * a session younger than 7 days (decision 0102).
 */

import { Api, apiError, toApiError } from "@svc/contract"
import { type NonceStore, SignIn, type SiweAudience } from "@svc/domain/auth"
import type { IdGenerator } from "@svc/domain/Ids"
import { Duplicates } from "@svc/domain/payout"
import type { Randomness } from "@svc/domain/Randomness"
import type { SignatureVerifier } from "@svc/domain/signature"
import type { UserRepository } from "@svc/domain/user"
import { Effect, Layer, Redacted } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { AccessTokens } from "../AccessTokens.ts"
import { ok } from "./Respond.ts"
import { ServerConfig } from "./ServerConfig.ts"
import { bearerCredential } from "./VerifiedToken.ts"

/** The authentication handlers. */
export const AuthHandlers = HttpApiBuilder.group(
  Api,
  "auth",
  Effect.fn(function* (handlers) {
    const signIn = yield* SignIn
    const tokens = yield* AccessTokens
    const audience = audienceOf(yield* ServerConfig)
    return handlers.handleAll({
      siwe: ({ query }) => Effect.map(signIn.challenge(query.wallet, audience, query.svcid), ok),
      verify: ({ payload }) =>
        signIn.complete({ message: payload.message, signature: payload.sig, nonce: payload.nonce }, audience).pipe(
          Effect.flatMap((user) => tokens.issue({ sub: user.nanoid, wallet: user.wallet })),
          Effect.mapBoth({ onFailure: toApiError, onSuccess: (jwt) => ok({ jwt }) })
        ),
      // Authentication has let a valid token through; its session's age is read from the token itself.
      refresh: () =>
        Effect.flatMap(bearerCredential, (token) => tokens.renew(Redacted.value(token))).pipe(
          Effect.mapBoth({
            onFailure: (refused) =>
              refused._tag === "SessionTooOld"
                ? apiError("UNAUTHORIZED", "The session began more than 7 days ago: sign in with the wallet again")
                : apiError(refused.reason === "expired" ? "JWT_EXPIRED" : "UNAUTHORIZED"),
            onSuccess: (jwt) => ok({ jwt })
          })
        )
    })
  })
).pipe(Layer.provide(SignIn.layer.pipe(Layer.provide(Duplicates.layer))))

/** Where sign-in happens: this server's authority and verify URI, on its chain; messages and nonces live 5 minutes. */
const audienceOf = (config: ServerConfig["Service"]): SiweAudience => ({
  domain: config.siweDomain,
  uri: config.siweUri,
  chainId: config.chainId,
  ttlMillis: config.nonceTtlMillis
})

/** What signing in needs: the signature check (EOA or ERC-1271) is a port the composition root chooses. */
export type AuthRequirements =
  | SignatureVerifier
  | NonceStore
  | UserRepository
  | IdGenerator
  | Randomness
  | AccessTokens
  | ServerConfig
