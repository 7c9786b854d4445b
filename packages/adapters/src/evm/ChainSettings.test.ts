import { assert, describe, it } from "@effect/vitest"
import { Config, ConfigProvider, Effect, Redacted } from "effect"
import { arbitrumOneUsdc, ChainSettingsConfig } from "./ChainSettings.ts"

const relayerKey = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d"
const env = {
  RPC_URL: "https://arb1.example.com/rpc",
  RELAYER_PRIVATE_KEY: relayerKey,
  FORWARDER_ADDRESS: "0x1111111111111111111111111111111111111111",
  ESCROW_ADDRESS: "0x2222222222222222222222222222222222222222"
}
const load = (record: Record<string, string>) => ChainSettingsConfig.parse(ConfigProvider.fromEnv({ env: record }))

describe("ChainSettingsConfig (production configuration)", () => {
  it.effect("defaults to Arbitrum One and its native USDC, and keeps the relayer key redacted", () =>
    Effect.gen(function* () {
      const settings = yield* load(env)
      assert.strictEqual(settings.chainId, 42161)
      assert.strictEqual(settings.addresses.token, arbitrumOneUsdc)
      assert.strictEqual(settings.addresses.forwarder, env.FORWARDER_ADDRESS)
      assert.deepStrictEqual(settings.relayerKeys.map(Redacted.value), [relayerKey])
      assert.notInclude(String(settings.relayerKeys), relayerKey.slice(2))
      // Amounts (the relayer's minimum balance) are bigints: written as text here.
      const json = JSON.stringify(settings, (_, value) => (typeof value === "bigint" ? value.toString() : value))
      assert.notInclude(json, relayerKey.slice(2))
      assert.strictEqual(settings.relayer?.minBalance, 10n ** 15n)
    })
  )

  it.effect("batches by default, as BATCH_* say, and refuses a batch of no request", () =>
    Effect.gen(function* () {
      assert.deepStrictEqual((yield* load(env)).batch, { quietMillis: 10, waitMillis: 250, maxRequests: 64 })
      assert.deepStrictEqual(
        (yield* load({ ...env, BATCH_QUIET_MS: "5", BATCH_WAIT_MS: "0", BATCH_MAX_REQUESTS: "1" })).batch,
        { quietMillis: 5, waitMillis: 0, maxRequests: 1 }
      )
      const none = yield* Effect.flip(load({ ...env, BATCH_MAX_REQUESTS: "0" }))
      assert.instanceOf(none, Config.ConfigError)
      assert.include(String(none), "BATCH_MAX_REQUESTS must be at least 1")
    })
  )

  it.effect("takes TOKEN_ADDRESS over the default, and requires it off Arbitrum One", () =>
    Effect.gen(function* () {
      const token = "0x3333333333333333333333333333333333333333"
      assert.strictEqual((yield* load({ ...env, TOKEN_ADDRESS: token })).addresses.token, token)
      const sepolia = yield* Effect.flip(load({ ...env, CHAIN_ID: "421614" }))
      assert.instanceOf(sepolia, Config.ConfigError)
      assert.strictEqual((yield* load({ ...env, CHAIN_ID: "421614", TOKEN_ADDRESS: token })).chainId, 421614)
      const typo = yield* Effect.flip(load({ ...env, FORWARDER_ADDRESS: "0x1234" }))
      assert.instanceOf(typo, Config.ConfigError)
    })
  )

  it.effect(
    "takes several RPC endpoints separated by commas, and names a wrong one by position, never by its text",
    () =>
      Effect.gen(function* () {
        const list = " https://a.example/rpc/KEY1 ,http://127.0.0.1:8545, "
        assert.strictEqual(Redacted.value((yield* load({ ...env, RPC_URL: list })).rpcUrl), list)
        const wrong = yield* Effect.flip(load({ ...env, RPC_URL: "https://a.example/rpc/KEY1,ftp://b.example/KEY2" }))
        assert.instanceOf(wrong, Config.ConfigError)
        assert.include(String(wrong), "entry 2 of 2")
        assert.notInclude(String(wrong), "KEY")
        assert.instanceOf(yield* Effect.flip(load({ ...env, RPC_URL: " , " })), Config.ConfigError)
      })
  )

  it.effect("takes several relayer keys, shared by every process, and names a wrong one by position only", () =>
    Effect.gen(function* () {
      const second = "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a"
      const { RELAYER_PRIVATE_KEY: _, ...withoutKey } = env
      const settings = yield* load({ ...withoutKey, RELAYER_PRIVATE_KEYS: ` ${relayerKey}, ${second} ` })
      assert.deepStrictEqual(settings.relayerKeys.map(Redacted.value), [relayerKey, second])
      // The list wins over the single key when both are set.
      assert.strictEqual((yield* load({ ...env, RELAYER_PRIVATE_KEYS: second })).relayerKeys.length, 1)
      const wrong = yield* Effect.flip(load({ ...withoutKey, RELAYER_PRIVATE_KEYS: `${relayerKey},${second}ff` }))
      assert.include(String(wrong), "relayer key 2 of 2")
      assert.notInclude(String(wrong), second.slice(2))
      const twice = yield* Effect.flip(load({ ...withoutKey, RELAYER_PRIVATE_KEYS: `${relayerKey},${relayerKey}` }))
      assert.include(String(twice), "twice")
      assert.instanceOf(yield* Effect.flip(load({ ...withoutKey, RELAYER_PRIVATE_KEYS: " , " })), Config.ConfigError)
    })
  )
})
