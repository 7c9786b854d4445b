/**
 * `GET /health` and `GET /ready`.
 */
import { ChainGateway, ChainSupervision } from "@svc/domain/chain"
import { StorageHealth } from "@svc/domain/StorageHealth"
import { Duration, Effect, Option } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../Api.ts"
import { NotReady, type ReadinessChecks } from "../SystemApi.ts"

/** How long readiness waits for each dependency: a probe must answer well before an orchestrator's own timeout. */
const checkTimeout = Duration.seconds(2)

const upOrDown = <E>(check: Effect.Effect<unknown, E>) =>
  check.pipe(
    Effect.timeout(checkTimeout),
    Effect.as("up" as const),
    Effect.catchCause(() => Effect.succeed("down" as const))
  )

/**
 * Liveness: 200 while the server serves. Readiness: each dependency exercised at once (the database with a write that is
 * rolled back, the chain with its id and the contracts' code), 503 naming any that is down; while this process's own
 * node is being restarted, the chain is down and `chain_status` says what the supervisor is doing.
 */
export const SystemHandlers = HttpApiBuilder.group(Api, "system", (handlers) =>
  handlers
    .handle("health", () => Effect.succeed({ success: true as const, data: { status: "ok" as const } }))
    .handle("ready", () =>
      Effect.gen(function* () {
        const storage = yield* StorageHealth
        const chain = yield* Effect.serviceOption(ChainGateway)
        const supervision = yield* Effect.serviceOption(ChainSupervision)
        const chainStatus = Option.isSome(supervision) ? yield* supervision.value.status : undefined
        const checks: ReadinessChecks = yield* Effect.all(
          {
            database: upOrDown(storage.ping),
            chain: Option.isNone(chain)
              ? Effect.succeed("absent" as const)
              : chainStatus !== undefined
                ? Effect.succeed("down" as const)
                : upOrDown(chain.value.readiness)
          },
          { concurrency: "unbounded" }
        )
        if (checks.database === "down" || checks.chain === "down") {
          return yield* new NotReady({
            success: false,
            data: { status: "not_ready", checks, ...(chainStatus === undefined ? {} : { chain_status: chainStatus }) },
            error_code: "SERVICE_UNAVAILABLE"
          })
        }
        return { success: true as const, data: { status: "ready" as const, checks } }
      })
    )
)
