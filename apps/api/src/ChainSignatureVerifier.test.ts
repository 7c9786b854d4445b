/**
 * Sign-in with a smart-contract wallet (ERC-1271) through the chain-reading verifier, on the shared anvil.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { HttpServer } from "effect/http"
import { createTestClient, http } from "viem"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import { inject } from "vitest"
import { call, signIn, type TestServer } from "../test/TestServer.ts"
import * as ChainSignatureVerifier from "./ChainSignatureVerifier.ts"
import * as Server from "./Server.ts"

/** Runtime code answering every call with `magic` as a bytes4 word: an ERC-1271 wallet that accepts (or refuses) all. */
const walletCode = (magic: string) => `0x63${magic}60e01b60005260206000f3` as const

const start = Effect.gen(function* () {
  const context = yield* Layer.build(
    Server.layer({
      port: 0,
      logRequests: false,
      signatureVerifier: ChainSignatureVerifier.layer(inject("rpcUrl"))
    })
  )
  const server = yield* HttpServer.HttpServer.pipe(Effect.provide(context))
  return { baseUrl: HttpServer.formatAddress(server.address) } as TestServer
})

describe("sign-in with a contract wallet", () => {
  it.live("an ERC-1271 wallet signs in when it accepts the signature, and is refused when it does not", () =>
    Effect.gen(function* () {
      const server = yield* start
      const anvil = createTestClient({ mode: "anvil", transport: http(inject("rpcUrl")) })
      const accepting = privateKeyToAccount(generatePrivateKey()).address
      const refusing = privateKeyToAccount(generatePrivateKey()).address
      yield* Effect.promise(() => anvil.setCode({ address: accepting, bytecode: walletCode("1626ba7e") }))
      yield* Effect.promise(() => anvil.setCode({ address: refusing, bytecode: walletCode("ffffffff") }))
      const someSignature = `0x${"ab".repeat(65)}`
      for (const [wallet, status] of [
        [accepting, 200],
        [refusing, 401]
      ] as const) {
        const siwe = yield* call(server, "GET", `/v2/auth/siwe?wallet=${wallet}`)
        const verified = yield* call(server, "POST", "/v2/auth/verify", {
          body: { message: siwe.body.data.siwe, sig: someSignature, nonce: siwe.body.data.nonce }
        })
        assert.strictEqual(verified.status, status, JSON.stringify(verified.body))
      }
      // Externally owned accounts still sign in through the same verifier.
      const token = yield* signIn(server, privateKeyToAccount(generatePrivateKey()))
      assert.isString(token)
    }).pipe(Effect.scoped)
  )
})
