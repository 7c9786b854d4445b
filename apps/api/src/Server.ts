/**
 * The API server as a Layer: the HttpApi contract, its handlers, OpenAPI at `/openapi.json` and docs at `/docs`.
 */
import { createServer } from "node:http"
import { NodeHttpServer } from "@effect/platform-node"
import { Api } from "@svc/adapters/http"
import { Effect, Layer } from "effect"
import { HttpRouter } from "effect/http"
import { HttpApiBuilder, HttpApiScalar } from "effect/http-api"

const SystemHandlers = HttpApiBuilder.group(Api, "system", (handlers) =>
  handlers.handle("health", () => Effect.succeed({ success: true as const, data: { status: "ok" as const } }))
)

/** Every route of the API, without a server. */
export const Routes = Layer.mergeAll(
  HttpApiBuilder.layer(Api, { openapiPath: "/openapi.json" }).pipe(Layer.provide(SystemHandlers)),
  HttpApiScalar.layer(Api, { path: "/docs" })
)

/** The routes served by Node's HTTP server on `port` (0 picks a free one). */
export const layer = (options: { readonly port: number; readonly host?: string }) =>
  HttpRouter.serve(Routes).pipe(
    Layer.provideMerge(NodeHttpServer.layer(createServer, { port: options.port, host: options.host ?? "127.0.0.1" }))
  )
