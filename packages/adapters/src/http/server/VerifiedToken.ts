/**
 * The request's bearer token, verified once: the idempotency middleware verifies it to scope the key, and
 * authentication, which runs inside that middleware, reuses the verdict for the same token instead of checking the
 * JWT's signature again. A request without an idempotency key has no verdict yet and is verified by authentication.
 */
import { Context, Effect, type Exit } from "effect"
import { HttpServerRequest } from "effect/http"
import { HttpApiBuilder, HttpApiSecurity } from "effect/http-api"
import type { AccessTokens, TokenClaims, TokenRefused } from "../AccessTokens.ts"

/** A token and what verifying it gave, for the request being served. */
export class VerifiedToken extends Context.Reference<
  { readonly token: string; readonly verdict: Exit.Exit<TokenClaims, TokenRefused> } | undefined
>("@svc/adapters/http/server/VerifiedToken", { defaultValue: () => undefined }) {}

/**
 * The bearer credential of the request, parsed as the API's security layer parses it ("" when there is none). The
 * bearer scheme reads the `authorization` header only; the search parameters its signature asks for go unused.
 */
export const bearerCredential = HttpApiBuilder.securityDecode(HttpApiSecurity.bearer).pipe(
  Effect.provideService(HttpServerRequest.ParsedSearchParams, {})
)

/** Verifies `token`, reusing the verdict an outer middleware reached for the same token in this request. */
export const verifyOnce = (tokens: typeof AccessTokens.Service, token: string) =>
  Effect.gen(function* () {
    const earlier = yield* VerifiedToken
    return yield* earlier !== undefined && earlier.token === token ? earlier.verdict : tokens.verify(token)
  })
