import { assert, describe, it } from "@effect/vitest"
import { Cause, Effect, Exit, Option, Stream } from "effect"
import { ChainAbsent } from "./ChainError.ts"
import { ChainGateway } from "./ChainGateway.ts"

/** The defect an effect died with. */
const defectOf = <A, E>(exit: Exit.Exit<A, E>) =>
  Exit.isFailure(exit) ? exit.cause.reasons.find(Cause.isDieReason)?.defect : undefined

describe("ChainGateway.layerAbsent", () => {
  it.effect("keeps the configured chain id and is not a present chain", () =>
    Effect.gen(function* () {
      const chain = yield* ChainGateway
      assert.strictEqual(chain.chainId, 421614)
      assert.isTrue(Option.isNone(yield* ChainGateway.present))
    }).pipe(Effect.provide(ChainGateway.layerAbsent(421614)))
  )

  it.effect("no gateway at all is no present chain either", () =>
    Effect.map(ChainGateway.present, (chain) => assert.isTrue(Option.isNone(chain)))
  )

  it.effect("dies with ChainAbsent, naming the operation, wherever the chain is asked", () =>
    Effect.gen(function* () {
      const chain = yield* ChainGateway
      const asked = [
        ["addresses", chain.addresses],
        ["balanceOf", chain.balanceOf("0x0000000000000000000000000000000000000001")],
        ["executePayments", chain.executePayments({} as never)],
        ["readiness", chain.readiness],
        ["deposits", Stream.runDrain(chain.deposits([]))]
      ] as const
      for (const [operation, effect] of asked) {
        const defect = defectOf(yield* Effect.exit(effect as Effect.Effect<unknown, unknown>))
        assert.instanceOf(defect, ChainAbsent, operation)
        assert.strictEqual((defect as ChainAbsent).operation, operation)
        assert.strictEqual((defect as ChainAbsent).errorCode, "NOT_IMPLEMENTED")
      }
      const required = defectOf(yield* Effect.exit(ChainGateway.required))
      assert.instanceOf(required, ChainAbsent)
    }).pipe(Effect.provide(ChainGateway.layerAbsent(42161)))
  )
})
