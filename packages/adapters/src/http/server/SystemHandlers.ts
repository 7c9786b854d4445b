/**
 * `GET /health` and `GET /ready`.
 */

import { Api, NotReady, type ReadinessChecks } from "@svc/contract"
import { ChainGateway, ChainSupervision, type RelayerHealth } from "@svc/domain/chain"
import { StorageHealth } from "@svc/domain/StorageHealth"
import { workerOutages } from "@svc/domain/Worker"
import { Duration, Effect, Option } from "effect"
import { HttpApiBuilder } from "effect/http-api"

/** How long readiness waits for each dependency: a probe must answer well before an orchestrator's own timeout. */
const checkTimeout = Duration.seconds(2)

const upOrDown = <E>(check: Effect.Effect<unknown, E>) =>
  check.pipe(
    Effect.timeout(checkTimeout),
    Effect.as("up" as const),
    Effect.catchCause(() => Effect.succeed("down" as const))
  )

/** The relayers' check: absent without a chain, down when their figures could not be read, low when one is. */
const relayerCheck = (
  hasChain: boolean,
  health: ReadonlyArray<RelayerHealth> | undefined
): ReadinessChecks["relayer"] =>
  !hasChain ? "absent" : health === undefined ? "down" : health.some((key) => key.low) ? "low" : "up"

const reportOf = (health: RelayerHealth) => ({
  address: health.address,
  balance_wei: health.balance.toString(),
  low: health.low,
  pending: health.pending,
  oldest_pending_seconds:
    health.oldestPendingMillis === undefined ? null : Math.round(health.oldestPendingMillis / 100) / 10
})

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
        const chain = yield* ChainGateway.present
        const supervision = yield* Effect.serviceOption(ChainSupervision)
        const chainStatus = Option.isSome(supervision) ? yield* supervision.value.status : undefined
        const [checks, health] = yield* Effect.all(
          [
            Effect.all(
              {
                database: upOrDown(storage.ping),
                chain: Option.isNone(chain)
                  ? Effect.succeed("absent" as const)
                  : chainStatus !== undefined
                    ? Effect.succeed("down" as const)
                    : upOrDown(chain.value.readiness)
              },
              { concurrency: "unbounded" }
            ),
            Option.isNone(chain) || chainStatus !== undefined
              ? Effect.succeed(undefined)
              : chain.value.relayerHealth.pipe(
                  Effect.timeout(Duration.seconds(2)),
                  Effect.catchCause(() => Effect.succeed(undefined))
                )
          ],
          { concurrency: "unbounded" }
        )
        const relayer = relayerCheck(Option.isSome(chain), health)
        const all: ReadinessChecks = { ...checks, relayer }
        const failing = workerOutages()
        const report = {
          ...(health === undefined ? {} : { relayers: health.map(reportOf) }),
          ...(failing.length === 0
            ? {}
            : {
                workers: failing.map((outage) => ({
                  worker: outage.worker,
                  since: new Date(outage.since).toISOString(),
                  reason: outage.reason,
                  failures: outage.failures
                }))
              })
        }
        if (checks.database === "down" || checks.chain === "down" || relayer === "low" || relayer === "down") {
          return yield* new NotReady({
            success: false,
            data: {
              status: "not_ready",
              checks: all,
              ...report,
              ...(chainStatus === undefined ? {} : { chain_status: chainStatus })
            },
            error_code: "SERVICE_UNAVAILABLE"
          })
        }
        return { success: true as const, data: { status: "ready" as const, checks: all, ...report } }
      })
    )
)
