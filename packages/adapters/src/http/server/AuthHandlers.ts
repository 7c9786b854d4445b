/**
 * `GET /v2/auth/siwe` and `POST /v2/auth/verify` (SPEC §5): a single-use nonce per message, then a JWT for the wallet
 * that signed it. An unknown wallet becomes a new user (DESIGN §5).
 */
import { consumeNonce, makeSiweMessage, NonceStore, verifySiweMessage } from "@svc/domain/auth"
import type { Address } from "@svc/domain/Evm"
import { IdGenerator } from "@svc/domain/Ids"
import type { SignatureVerifier } from "@svc/domain/signature"
import { newUser, UserRepository } from "@svc/domain/user"
import { Clock, DateTime, Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import type { Hex } from "viem"
import { AccessTokens } from "../AccessTokens.ts"
import { Api } from "../Api.ts"
import { apiError } from "../ApiError.ts"
import { ServerConfig } from "./ServerConfig.ts"

/** The user with `wallet`, created on first sign-in; concurrent first sign-ins agree on one user. */
const userForWallet = Effect.fn("AuthHandlers.userForWallet")(function* (wallet: string, svcid: string | undefined) {
  const users = yield* UserRepository
  const existing = yield* users.findByWallet(wallet)
  if (existing._tag === "Some") return existing.value
  const ids = yield* IdGenerator
  const created = newUser({
    nanoid: yield* ids.make("user"),
    wallet,
    svcid,
    created_at: DateTime.formatIso(yield* DateTime.now)
  })
  return yield* users.insert(created).pipe(
    Effect.as(created),
    Effect.catchTag("WalletTaken", () =>
      Effect.flatMap(users.findByWallet(wallet), (user) =>
        user._tag === "Some" ? Effect.succeed(user.value) : Effect.die(new Error("wallet taken but not found"))
      )
    )
  )
})

/** The authentication handlers. */
export const AuthHandlers = HttpApiBuilder.group(Api, "auth", (handlers) =>
  handlers
    .handle("siwe", ({ query }) =>
      Effect.gen(function* () {
        const config = yield* ServerConfig
        const { message, fields } = yield* makeSiweMessage({
          address: query.wallet as Address,
          domain: config.siweDomain,
          uri: config.siweUri,
          chainId: config.chainId,
          ttlMillis: config.nonceTtlMillis
        }).pipe(Effect.mapError((error) => apiError("INVALID_WALLET", error.reason)))
        const now = yield* Clock.currentTimeMillis
        yield* NonceStore.use((store) =>
          store.issue({ nonce: fields.nonce, wallet: fields.address, expiresAt: now + config.nonceTtlMillis })
        )
        return { success: true as const, data: { siwe: message, nonce: fields.nonce } }
      })
    )
    .handle("verify", ({ payload }) =>
      Effect.gen(function* () {
        const config = yield* ServerConfig
        const fields = yield* verifySiweMessage({
          message: payload.message,
          signature: payload.sig as Hex,
          expected: {
            domain: config.siweDomain,
            uri: config.siweUri,
            chainId: config.chainId,
            nonce: payload.nonce,
            clockSkewMillis: 60_000
          }
        }).pipe(Effect.mapError((error) => apiError(error.errorCode)))
        const record = yield* consumeNonce(payload.nonce).pipe(Effect.mapError((error) => apiError(error.errorCode)))
        if (record.wallet.toLowerCase() !== fields.address.toLowerCase()) {
          return yield* Effect.fail(apiError("SIGNATURE_MISMATCH", "The nonce was issued for another wallet"))
        }
        const user = yield* userForWallet(fields.address, undefined)
        const jwt = yield* AccessTokens.use((tokens) => tokens.issue({ sub: user.nanoid, wallet: user.wallet }))
        return { success: true as const, data: { jwt } }
      })
    )
)

/** What signing in needs: the signature check (EOA or ERC-1271) is a port the composition root chooses. */
export type AuthRequirements =
  | SignatureVerifier
  | NonceStore
  | UserRepository
  | IdGenerator
  | AccessTokens
  | ServerConfig
