/**
 * Access tokens (SPEC §5): 24-hour JWTs signed with HS256 by `jose`, carrying `sub` (user id), `wallet`, `iat`,
 * `exp`, `jti` and the key id in the header. Verification accepts only HS256 under our key id, so `alg: none`,
 * other algorithms and tokens of another key are all refused, and only claims we issue: `iat` not in the future and
 * a lifetime of at most 24 hours.
 */

import { createHash, randomUUID } from "node:crypto"
import { AccessTokenClaims, accessTokenLifetimeSeconds } from "@svc/domain/auth"
import type { UserId } from "@svc/domain/Ids"
import { Clock, Config, Context, Effect, Layer, Redacted, Schema } from "effect"
import { errors, jwtVerify, SignJWT } from "jose"

/** The lifetime of an access token (SPEC §8). */
export const tokenLifetimeSeconds = accessTokenLifetimeSeconds

/** How far a token's `iat` may be ahead of our clock (another replica's clock). */
const clockSkewSeconds = 60

/** Why a token was refused: `expired` or anything else (`invalid`). */
export class TokenRefused extends Schema.TaggedError<TokenRefused>()("TokenRefused", {
  reason: Schema.Literals(["expired", "invalid"])
}) {}

/** What a valid token says about its bearer, decoded (the wallet in normal form). */
export type TokenClaims = AccessTokenClaims

const decodeClaims = Schema.decodeUnknownSync(AccessTokenClaims)

/** Issues and verifies access tokens. */
export class AccessTokens extends Context.Service<
  AccessTokens,
  {
    readonly issue: (user: { readonly sub: UserId; readonly wallet: string }) => Effect.Effect<string>
    readonly verify: (token: string) => Effect.Effect<TokenClaims, TokenRefused>
  }
>()("@svc/adapters/http/AccessTokens") {
  /** Tokens signed with `secret` (at least 32 bytes). The key id is derived from the secret, never the secret itself. */
  static readonly make = (secret: Redacted.Redacted<string>) =>
    Layer.sync(AccessTokens, () => {
      const key = new TextEncoder().encode(Redacted.value(secret))
      const kid = createHash("sha256").update(key).digest("hex").slice(0, 16)
      const issuer = "svc"
      return AccessTokens.of({
        issue: (user) =>
          Effect.flatMap(Clock.currentTimeMillis, (now) =>
            Effect.promise(() => {
              const iat = Math.floor(now / 1000)
              return new SignJWT({ wallet: user.wallet })
                .setProtectedHeader({ alg: "HS256", typ: "JWT", kid })
                .setSubject(user.sub)
                .setIssuer(issuer)
                .setIssuedAt(iat)
                .setExpirationTime(iat + tokenLifetimeSeconds)
                .setJti(randomUUID())
                .sign(key)
            })
          ),
        verify: (token) =>
          Effect.flatMap(Clock.currentTimeMillis, (now) =>
            Effect.tryPromise({
              try: async () => {
                const { payload, protectedHeader } = await jwtVerify(token, key, {
                  algorithms: ["HS256"],
                  issuer,
                  currentDate: new Date(now),
                  requiredClaims: ["sub", "iat", "exp", "jti"],
                  // Refuses an `iat` in the future (beyond a minute's clock skew) or older than a token lives.
                  maxTokenAge: tokenLifetimeSeconds,
                  clockTolerance: clockSkewSeconds
                })
                if (protectedHeader.kid !== kid) throw new Error("unknown key id")
                // We never issue a token that lives longer than 24 hours (SPEC §8).
                if ((payload.exp ?? 0) - (payload.iat ?? 0) > tokenLifetimeSeconds) throw new Error("lifetime too long")
                return decodeClaims(payload)
              },
              catch: (error) => new TokenRefused({ reason: error instanceof errors.JWTExpired ? "expired" : "invalid" })
            })
          )
      })
    })

  /** From `JWT_SECRET` (Redacted, at least 32 characters). */
  static readonly layerConfig = Layer.unwrap(
    Effect.map(
      Config.Redacted("JWT_SECRET").pipe(
        Config.mapEffect((s) =>
          Redacted.value(s).length >= 32 ? Effect.succeed(s) : Effect.die("JWT_SECRET must be at least 32 characters")
        )
      ),
      (secret) => AccessTokens.make(secret)
    )
  )
}
