/**
 * The contracts version check at start (decision 0060), on the run's anvil: the production gateway refuses a
 * forwarder of another version (one from before versions reads as version 1) with one line saying what to do, and
 * takes this version's.
 */
import { assert, describe, it } from "@effect/vitest"
import { ChainGateway } from "@svc/domain/chain"
import { Context, Effect, Layer, Redacted } from "effect"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import { inject } from "vitest"
import { contractsVersion } from "./ContractsVersion.ts"
import { EmbeddedChain } from "./EmbeddedChain.ts"
import * as ViemChainGateway from "./ViemChainGateway.ts"

const rpcUrl = inject("rpcUrl")

describe("the contracts version", () => {
  it.live("a forwarder of another version is refused with what to do; this version is served", () =>
    Effect.gen(function* () {
      const embedded = yield* Layer.build(EmbeddedChain.layer({ rpcUrl, chainId: 42161 })).pipe(Effect.orDie)
      const { suite } = Context.get(embedded, EmbeddedChain)
      const relayerKey = generatePrivateKey()
      yield* Context.get(embedded, EmbeddedChain)
        .setEtherBalance(privateKeyToAccount(relayerKey).address, 10n ** 21n)
        .pipe(Effect.orDie)
      const gatewayOn = (forwarder: `0x${string}`) =>
        Layer.build(
          ViemChainGateway.layer({
            rpcUrl: Redacted.make(rpcUrl),
            chainId: 42161,
            relayerKeys: [Redacted.make(relayerKey)],
            addresses: { ...suite, forwarder },
            pollingInterval: 10
          })
        )
      assert.strictEqual(contractsVersion, 5n)
      // The test token has no `CONTRACTS_VERSION`, as a forwarder from before versions: version 1.
      const refused = yield* Effect.flip(gatewayOn(suite.token))
      assert.strictEqual(refused._tag, "ContractsVersionMismatch")
      assert.strictEqual(
        refused.message,
        `the forwarder at ${suite.token} is contracts version 1, and this server needs version 5: deploy this version with \`npm run deploy\` and set FORWARDER_ADDRESS and ESCROW_ADDRESS to the addresses it prints`
      )
      const served = yield* gatewayOn(suite.forwarder).pipe(Effect.orDie)
      assert.strictEqual((yield* Context.get(served, ChainGateway).addresses).forwarder, suite.forwarder)
    }).pipe(Effect.scoped)
  )
})
