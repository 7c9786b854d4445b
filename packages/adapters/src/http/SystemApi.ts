/**
 * Operational endpoints: liveness for load balancers and orchestrators.
 */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { answers } from "./OperationDocs.ts"

/** `GET /health`: 200 once the server serves. */
export class SystemApi extends HttpApiGroup.make("system", { topLevel: true })
  .add(
    HttpApiEndpoint.get("health", "/health", {
      success: Schema.Struct({ success: Schema.Literal(true), data: Schema.Struct({ status: Schema.Literal("ok") }) })
    })
      .annotate(OpenApi.Summary, "Liveness")
      .pipe(answers([], { dependencies: false }))
  )
  .annotateMerge(OpenApi.annotations({ title: "System" })) {}
