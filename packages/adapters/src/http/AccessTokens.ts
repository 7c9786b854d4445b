/**
 * Access tokens (SPEC §5): 24-hour JWTs signed with HS256 by `jose`, carrying `sub` (user id), `wallet`, `iat`,
 * `exp`, `jti` and the key id in the header. Verification accepts only HS256 under our key id, so `alg: none`,
 * other algorithms and tokens of another key are all refused, and only claims we issue: `iat` not in the future and
 * a lifetime of at most 24 hours.
 *
 * A token verified once is known by its exact text until it expires (`knownTokens` of them, the oldest forgotten
 * first): the same bytes under the same key verify the same way, so a caller's next requests skip the HMAC. Past its
 * `exp` a known token goes through `jose` again, which answers whether it is expired.
 */

import { createHash, randomUUID, webcrypto } from "node:crypto"
import { AccessTokenClaims, accessTokenLifetimeSeconds, sessionLifetimeSeconds } from "@svc/domain/auth"
import type { UserId } from "@svc/domain/Ids"
import { Clock, Config, Context, Effect, Layer, Redacted, Schema } from "effect"
import { errors, jwtVerify, SignJWT } from "jose"

/** The lifetime of an access token (SPEC §8). */
export const tokenLifetimeSeconds = accessTokenLifetimeSeconds

/** How far a token's `iat` may be ahead of our clock (another replica's clock). */
const clockSkewSeconds = 60

/** How many verified tokens are known by their text. */
export const knownTokens = 10_000

/** Why a token was refused: `expired` or anything else (`invalid`). */
export class TokenRefused extends Schema.TaggedError<TokenRefused>()("TokenRefused", {
  reason: Schema.Literals(["expired", "invalid"])
}) {}

/** What a valid token says about its bearer, decoded (the wallet in normal form). */
export type TokenClaims = AccessTokenClaims

/** A valid token whose session began too long ago to be renewed (decision 0102): the wallet signs in again. */
export class SessionTooOld extends Schema.TaggedError<SessionTooOld>()("SessionTooOld", {}) {}

/** When the wallet behind `claims` signed in: `auth_time`, or `iat` for a token issued before it was carried. */
export const signedInAt = (claims: TokenClaims): number => claims.auth_time ?? claims.iat

const decodeClaims = Schema.decodeUnknownSync(AccessTokenClaims)

/** Issues and verifies access tokens. */
export class AccessTokens extends Context.Service<
  AccessTokens,
  {
    /** A new token for `user`; `authTime` is when its wallet signed in (default now: a sign-in). */
    readonly issue: (user: {
      readonly sub: UserId
      readonly wallet: string
      readonly authTime?: number | undefined
    }) => Effect.Effect<string>
    readonly verify: (token: string) => Effect.Effect<TokenClaims, TokenRefused>
    /**
     * A new token for the session of a valid `token`, with the same user, wallet and sign-in time (decision 0102);
     * refused once the wallet signed in more than `sessionLifetimeSeconds` ago.
     */
    readonly renew: (token: string) => Effect.Effect<string, TokenRefused | SessionTooOld>
  }
>()("@svc/adapters/http/AccessTokens") {
  /** Tokens signed with `secret` (at least 32 bytes). The key id is derived from the secret, never the secret itself. */
  static readonly make = (secret: Redacted.Redacted<string>) =>
    Layer.sync(AccessTokens, () => {
      const key = new TextEncoder().encode(Redacted.value(secret))
      const kid = createHash("sha256").update(key).digest("hex").slice(0, 16)
      const issuer = "svc"
      // Imported once: given raw bytes, jose imports the key again for every token.
      const verifyKey = webcrypto.subtle.importKey("raw", key, { name: "HMAC", hash: "SHA-256" }, false, ["verify"])
      const known = new Map<string, TokenClaims>()
      const remember = (token: string, claims: TokenClaims) => {
        if (known.size >= knownTokens) known.delete(known.keys().next().value as string)
        known.set(token, claims)
      }
      const issue = (user: { readonly sub: UserId; readonly wallet: string; readonly authTime?: number | undefined }) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) =>
          Effect.promise(() => {
            const iat = Math.floor(now / 1000)
            return new SignJWT({ wallet: user.wallet, auth_time: user.authTime ?? iat })
              .setProtectedHeader({ alg: "HS256", typ: "JWT", kid })
              .setSubject(user.sub)
              .setIssuer(issuer)
              .setIssuedAt(iat)
              .setExpirationTime(iat + tokenLifetimeSeconds)
              .setJti(randomUUID())
              .sign(key)
          })
        )
      const verify = (token: string) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) => {
          const claims = known.get(token)
          if (claims !== undefined && now < claims.exp * 1000) return Effect.succeed(claims)
          return Effect.tryPromise({
            try: async () => {
              const { payload, protectedHeader } = await jwtVerify(token, await verifyKey, {
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
              const verified = decodeClaims(payload)
              remember(token, verified)
              return verified
            },
            catch: (error) => new TokenRefused({ reason: error instanceof errors.JWTExpired ? "expired" : "invalid" })
          })
        })
      const renew = (token: string) =>
        Effect.gen(function* () {
          const claims = yield* verify(token)
          const now = Math.floor((yield* Clock.currentTimeMillis) / 1000)
          if (now - signedInAt(claims) > sessionLifetimeSeconds) return yield* new SessionTooOld()
          return yield* issue({ sub: claims.sub, wallet: claims.wallet, authTime: signedInAt(claims) })
        })
      return AccessTokens.of({ issue, verify, renew })
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
