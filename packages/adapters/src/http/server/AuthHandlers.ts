/**
 * `GET /v2/auth/siwe` and `POST /v2/auth/verify` (SPEC §5): a single-use nonce per message, then a JWT for the wallet
 * that signed it. An unknown wallet becomes a new user (DESIGN §5).
 */
import { completeSiweSignIn, issueSiweChallenge, type NonceStore } from "@svc/domain/auth"
import type { Address } from "@svc/domain/Evm"
import { IdGenerator } from "@svc/domain/Ids"
import type { SignatureVerifier } from "@svc/domain/signature"
import { newUser, UserRepository } from "@svc/domain/user"
import { DateTime, Effect } from "effect"
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

/** The authentication handlers, on the domain's sign-in use cases. */
export const AuthHandlers = HttpApiBuilder.group(Api, "auth", (handlers) =>
  handlers
    .handle("siwe", ({ query }) =>
      Effect.gen(function* () {
        const config = yield* ServerConfig
        const siwe = yield* issueSiweChallenge(query.wallet as Address, audience(config), query.svcid)
        const nonce = /\nNonce: (\S+)/.exec(siwe)?.[1] ?? ""
        return { success: true as const, data: { siwe, nonce } }
      })
    )
    .handle("verify", ({ payload }) =>
      Effect.gen(function* () {
        const config = yield* ServerConfig
        const fields = yield* completeSiweSignIn(
          { message: payload.message, signature: payload.sig as Hex, nonce: payload.nonce },
          audience(config)
        ).pipe(Effect.mapError((error) => apiError(error.errorCode)))
        const user = yield* userForWallet(fields.address, fields.svcid)
        const jwt = yield* AccessTokens.use((tokens) => tokens.issue({ sub: user.nanoid, wallet: user.wallet }))
        return { success: true as const, data: { jwt } }
      })
    )
)

/** Where sign-in happens: this server's authority and verify URI, on its chain; messages and nonces live 5 minutes. */
const audience = (config: ServerConfig["Service"]) => ({
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
  | AccessTokens
  | ServerConfig
