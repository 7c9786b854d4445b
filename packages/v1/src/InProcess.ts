/**
 * v2 requests answered in the same process (decision 0074): the API serving `/v1` gives the v1 handler a client whose
 * requests run the API's own routes, with no socket, no second HTTP parse and no second connection pool.
 */
import { Context, Effect } from "effect"
import { HttpClient, HttpServerRequest, HttpServerResponse } from "effect/http"

/**
 * True while a v2 request made for a v1 call runs in-process. The v1 call itself went through the server's
 * middleware (request id, rate limits, timeout, access log and metrics); its v2 requests skip those, so a v1 call is
 * limited, logged and counted once.
 */
export class InProcessRequest extends Context.Reference<boolean>("@svc/v1/InProcessRequest", {
  defaultValue: () => false
}) {}

/** The routes' app as a router answers it: a response for the request in context. */
export type RoutesApp = Effect.Effect<
  HttpServerResponse.HttpServerResponse,
  unknown,
  HttpServerRequest.HttpServerRequest | import("effect").Scope.Scope
>

/**
 * A client whose requests `app()` answers in this process (`app` is read at each request: a router's app is complete
 * only once every route is added). A failure the app lets through is a defect: the server's error envelope answers
 * every failure of its routes.
 */
export const inProcessHttpClient = (app: () => RoutesApp): HttpClient.HttpClient =>
  HttpClient.make((request) =>
    app().pipe(
      Effect.provideService(HttpServerRequest.HttpServerRequest, HttpServerRequest.fromClientRequest(request)),
      Effect.provideService(InProcessRequest, true),
      Effect.scoped,
      Effect.map((response) => HttpServerResponse.toClientResponse(response, { request })),
      Effect.orDie
    )
  )
