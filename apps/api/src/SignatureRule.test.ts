/**
 * One signature rule at every signed entry point (issue 18, item 3; docs/decisions/0054): the malleable high-`s` twin
 * of a valid signature is refused by sign-in, by `PUT /v2/payments` before and after the request executed, and by
 * `PUT /v2/invites/manager` before and after, whether signatures are checked by the domain alone or by the verifier
 * that reads the chain (contract wallets), over real HTTP on SQLite and anvil.
 */
import { assert, describe, it } from "@effect/vitest"
import { EmbeddedChain } from "@svc/adapters/evm"
import { ChainGateway, svcAccountSaltOf } from "@svc/domain/chain"
import { signableOf, type TypedDataBundle } from "@svc/domain/eip712"
import { TeamRepository } from "@svc/domain/team"
import { Context, Effect, Layer } from "effect"
import type { Hex } from "viem"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import { inject } from "vitest"
import { addMember, call, seedTeam, signIn, startTestServerWith } from "../test/TestServer.ts"
import * as ChainSignatureVerifier from "./ChainSignatureVerifier.ts"

const rpcUrl = inject("rpcUrl")

/** The same signature with the high `s` (n - s) and the other `v`: ecrecover still yields the signer; EIP-2 refuses it. */
const highSTwin = (signature: Hex): Hex => {
  const n = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n
  const s = BigInt(`0x${signature.slice(66, 130)}`)
  const v = Number.parseInt(signature.slice(130, 132), 16)
  return `${signature.slice(0, 66)}${(n - s).toString(16).padStart(64, "0")}${(v === 27 ? 28 : 27).toString(16)}` as Hex
}

const verifiers = [
  ["the domain's verifier", undefined],
  ["the chain-reading verifier", ChainSignatureVerifier.layer(rpcUrl)]
] as const

describe("the high-s twin of a valid signature", () => {
  for (const [name, signatureVerifier] of verifiers) {
    it.live(
      `is refused at every signed route, before and after execution, with ${name}`,
      () =>
        Effect.gen(function* () {
          const chain = yield* Layer.build(EmbeddedChain.layer({ rpcUrl, chainId: 42161 })).pipe(Effect.orDie)
          const server = yield* startTestServerWith({ chain: Layer.succeedContext(chain), signatureVerifier })
          const gateway = Context.get(chain, ChainGateway)

          // Sign-in (SIWE): the twin is refused as a wrong signature is; the signature itself signs in.
          const wallet = privateKeyToAccount(generatePrivateKey())
          const siwe = yield* call(server, "GET", `/v2/auth/siwe?wallet=${wallet.address}`)
          const message = siwe.body.data.siwe as string
          const signed = yield* Effect.promise(() => wallet.signMessage({ message }))
          const verify = (sig: Hex) =>
            call(server, "POST", "/v2/auth/verify", { body: { message, sig, nonce: siwe.body.data.nonce } })
          const refusedSignIn = yield* verify(highSTwin(signed))
          assert.strictEqual(refusedSignIn.status, 401, JSON.stringify(refusedSignIn.body))
          assert.strictEqual((yield* verify(signed)).status, 200)

          // A team whose admin owns its funded account, and a member to pay.
          const seeded = yield* seedTeam(server, ["team_employee"])
          const admin = privateKeyToAccount(generatePrivateKey())
          yield* addMember(seeded.teamId, admin.address, "team_admin", `${admin.address}@t.example`).pipe(
            Effect.provide(server.context)
          )
          const { account } = yield* gateway
            .createAccount(admin.address, svcAccountSaltOf(seeded.teamId))
            .pipe(Effect.orDie)
          yield* Context.get(chain, EmbeddedChain)
            .mint(account, 10n ** 9n)
            .pipe(Effect.orDie)
          yield* TeamRepository.use((teams) => teams.update(seeded.teamId, { svc_account: account })).pipe(
            Effect.provide(server.context)
          )
          const token = yield* signIn(server, admin)

          /** A signed route, sent with the twin, the signature, then the twin again. */
          const twinBeforeAndAfter = (path: string, body: Record<string, unknown>, bundle: TypedDataBundle) =>
            Effect.gen(function* () {
              const signature = yield* Effect.promise(() => admin.signTypedData(signableOf(bundle) as never))
              const put = (sig: Hex) => call(server, "PUT", path, { token, body: { ...body, signature: sig } })
              for (const moment of ["before", "after"] as const) {
                const twin = yield* put(highSTwin(signature))
                assert.strictEqual(twin.status, 400, `${path} ${moment}: ${JSON.stringify(twin.body)}`)
                assert.strictEqual(twin.body.error_code, "INVALID_SIGNATURE")
                if (moment === "before") {
                  const executed = yield* put(signature)
                  assert.strictEqual(executed.status, 200, JSON.stringify(executed.body))
                }
              }
            })

          const payment = {
            from: seeded.teamId,
            to: [
              {
                to: seeded.members[0]!.user,
                amount_cents: 100,
                currency_symbol: "USD",
                invoice_description: "work"
              }
            ],
            pay_now: true
          }
          const issued = yield* call(server, "POST", "/v2/payments", { token, body: payment })
          assert.strictEqual(issued.status, 200, JSON.stringify(issued.body))
          const paymentBundle = issued.body.data as TypedDataBundle
          yield* twinBeforeAndAfter(
            "/v2/payments",
            { ...payment, signer: admin.address, typed_data: paymentBundle.typed_data },
            paymentBundle
          )

          const finance = privateKeyToAccount(generatePrivateKey())
          const invited = yield* call(server, "POST", "/v2/invites/manager", {
            token,
            body: {
              nanoid: seeded.teamId,
              invites: [{ email: "fin@example.com", role: "team_finance_admin", wallet: finance.address }]
            }
          })
          assert.strictEqual(invited.status, 200, JSON.stringify(invited.body))
          const rolesBundle = invited.body.data as TypedDataBundle & { invites: Array<string> }
          yield* twinBeforeAndAfter(
            "/v2/invites/manager",
            { invites: rolesBundle.invites, signer: admin.address, typed_data: rolesBundle.typed_data },
            rolesBundle
          )
        }).pipe(Effect.scoped),
      120_000
    )
  }
})
