/**
 * Operational endpoints for load balancers and orchestrators: liveness (`/health`: the process serves) and readiness
 * (`/ready`: its dependencies answer). Neither needs a token.
 */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { answers } from "./OperationDocs.ts"

/** What each dependency answered: the database (a write, rolled back), and the chain (`absent` when this deployment has none). */
export const ReadinessChecks = Schema.Struct({
  database: Schema.Literals(["up", "down"]),
  chain: Schema.Literals(["up", "down", "absent"]),
  /** The relayer keys' gas: `low` when one is below `RELAYER_MIN_BALANCE_WEI` (it cannot pay for much longer). */
  relayer: Schema.Literals(["up", "low", "down", "absent"])
})
/** The checks of `GET /ready`. */
export type ReadinessChecks = typeof ReadinessChecks.Type

/** One relayer key's figures, when this deployment has a chain. */
export const RelayerReport = Schema.Struct({
  address: Schema.String,
  /** Its gas balance, in wei (a decimal string). */
  balance_wei: Schema.String,
  /** Below `RELAYER_MIN_BALANCE_WEI`. */
  low: Schema.Boolean,
  /** Journaled transactions not final yet (one per nonce). */
  pending: Schema.Number,
  /** How long the oldest of them has been out, in seconds; `null` when none is. */
  oldest_pending_seconds: Schema.NullOr(Schema.Number)
})

/** A background worker of this process failing now (it backs off, quietly, until a pass works again). */
export const WorkerOutageReport = Schema.Struct({
  worker: Schema.String,
  /** When it started failing (ISO 8601). */
  since: Schema.String,
  /** Its first failure, one line. */
  reason: Schema.String,
  failures: Schema.Number
})

/** 503 from `GET /ready`: which dependency is down, in the same shape as the 200. */
export class NotReady extends Schema.Error<NotReady>("NotReady")(
  {
    success: Schema.Literal(false),
    data: Schema.Struct({
      status: Schema.Literal("not_ready"),
      checks: ReadinessChecks,
      relayers: Schema.optionalKey(Schema.Array(RelayerReport)),
      workers: Schema.optionalKey(Schema.Array(WorkerOutageReport)),
      /** What the supervisor of this process's own node is doing (embedded mode), when the chain is down for that. */
      chain_status: Schema.optionalKey(Schema.String)
    }),
    error_code: Schema.Literal("SERVICE_UNAVAILABLE")
  },
  { httpApiStatus: 503, description: "A dependency is down (SERVICE_UNAVAILABLE); `data.checks` names it" }
) {}

/**
 * `GET /health`: 200 while the server serves. `GET /ready`: 200 when a write on the database works (rolled back), the
 * chain serves (the expected chain id, the contracts' code) and no relayer key's gas is below its minimum, else 503;
 * both report each relayer key's figures.
 */
export class SystemApi extends HttpApiGroup.make("system", { topLevel: true })
  .add(
    HttpApiEndpoint.get("health", "/health", {
      success: Schema.Struct({ success: Schema.Literal(true), data: Schema.Struct({ status: Schema.Literal("ok") }) })
    })
      .annotate(OpenApi.Summary, "Liveness")
      .pipe(answers([], { dependencies: false, rateLimited: false }))
  )
  .add(
    HttpApiEndpoint.get("ready", "/ready", {
      success: Schema.Struct({
        success: Schema.Literal(true),
        data: Schema.Struct({
          status: Schema.Literal("ready"),
          checks: ReadinessChecks,
          relayers: Schema.optionalKey(Schema.Array(RelayerReport)),
          /** Workers failing now (the checks above decide readiness; these name what a worker meets). */
          workers: Schema.optionalKey(Schema.Array(WorkerOutageReport))
        })
      }),
      error: NotReady
    })
      .annotate(OpenApi.Summary, "Readiness")
      .pipe(answers([], { dependencies: false, rateLimited: false, keep: [503] }))
  )
  .annotateMerge(
    OpenApi.annotations({
      title: "System",
      description: "Liveness and readiness for load balancers; not rate limited."
    })
  ) {}
