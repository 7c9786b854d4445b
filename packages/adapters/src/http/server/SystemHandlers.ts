/**
 * `GET /health`.
 */
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../Api.ts"

/** Liveness: 200 while the server serves. */
export const SystemHandlers = HttpApiBuilder.group(Api, "system", (handlers) =>
  handlers.handle("health", () => Effect.succeed({ success: true as const, data: { status: "ok" as const } }))
)
