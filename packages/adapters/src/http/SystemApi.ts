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
  chain: Schema.Literals(["up", "down", "absent"])
})
/** The checks of `GET /ready`. */
export type ReadinessChecks = typeof ReadinessChecks.Type

/** 503 from `GET /ready`: which dependency is down, in the same shape as the 200. */
export class NotReady extends Schema.Error<NotReady>("NotReady")(
  {
    success: Schema.Literal(false),
    data: Schema.Struct({
      status: Schema.Literal("not_ready"),
      checks: ReadinessChecks,
      /** What the supervisor of this process's own node is doing (embedded mode), when the chain is down for that. */
      chain_status: Schema.optionalKey(Schema.String)
    }),
    error_code: Schema.Literal("SERVICE_UNAVAILABLE")
  },
  { httpApiStatus: 503, description: "A dependency is down (SERVICE_UNAVAILABLE); `data.checks` names it" }
) {}

/**
 * `GET /health`: 200 while the server serves. `GET /ready`: 200 when a write on the database works (rolled back) and the
 * chain serves (the expected chain id, the contracts' code), else 503.
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
        data: Schema.Struct({ status: Schema.Literal("ready"), checks: ReadinessChecks })
      }),
      error: NotReady
    }).annotate(OpenApi.Summary, "Readiness")
  )
  .annotateMerge(OpenApi.annotations({ title: "System" })) {}
