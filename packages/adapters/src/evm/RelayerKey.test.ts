/**
 * What a send's answer from the node means (RelayerKey.broadcast), on a real anvil: bytes the node already holds were
 * sent (another sender's copy reached it first); a refusal of other bytes sent nothing.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { createTestClient, type Hex, http, keccak256 } from "viem"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import { startAnvil } from "../embedded/Anvil.ts"
import { makeChainClient } from "./ChainClient.ts"
import { processJournal } from "./ProcessJournal.ts"
import { broadcast, makeKeyState } from "./RelayerKey.ts"

describe("RelayerKey.broadcast", () => {
  it.live("the same bytes twice are sent, not refused; other bytes on a used nonce are refused, nothing sent", () =>
    Effect.gen(function* () {
      const anvil = yield* startAnvil()
      const test = createTestClient({ mode: "anvil", transport: http(anvil.rpcUrl) })
      const account = privateKeyToAccount(generatePrivateKey())
      yield* Effect.promise(() => test.setBalance({ address: account.address, value: 10n ** 21n }))
      // Held in the pool, so the second copy meets the first there.
      yield* Effect.promise(() => test.setAutomine(false))
      const client = makeChainClient({ rpcUrl: anvil.rpcUrl, chainId: anvil.chainId, pollingInterval: 50 })
      const key = yield* makeKeyState(client, anvil.chainId, account, processJournal(), {})
      const transfer = (value: bigint) =>
        Effect.promise(() =>
          account.signTransaction({
            to: account.address,
            value,
            nonce: 0,
            gas: 21_000n,
            maxFeePerGas: 10n ** 10n,
            maxPriorityFeePerGas: 10n ** 9n,
            chainId: anvil.chainId,
            type: "eip1559"
          })
        )
      const raw = yield* transfer(1n)
      const version = (bytes: Hex) => ({ hash: keccak256(bytes), raw: bytes })

      yield* broadcast(key, version(raw))
      // Another sender's copy of the same bytes, or a retry after a lost answer: the node holds them, so sent.
      assert.isTrue(Exit.isSuccess(yield* Effect.exit(broadcast(key, version(raw)))))

      yield* Effect.promise(() => test.mine({ blocks: 1 }))
      // Other bytes on the nonce the chain has passed: refused by the node, so nothing was sent.
      const refused = yield* Effect.flip(broadcast(key, version(yield* transfer(2n))))
      assert.strictEqual(refused._tag, "ChainUnreachable")
    }).pipe(Effect.scoped)
  )
})
