/**
 * `/v1` served by the API itself (`SERVE_V1`, decision 0074): the migration tool's v1 handler, without the proxy's
 * second HTTP server. Its v2 calls run the API's own routes in this process (no socket; authenticated and authorised
 * as any v2 call, as the caller's token), and the hot path, a team's talent, reads the use case as
 * `GET /v2/teams/{team}/users` does, without writing and parsing v2's JSON. The v1 call goes through the server's
 * middleware once (request id, rate limits, timeout, access log, metrics).
 */
import { toApiError } from "@svc/contract"
import { V1IdMap } from "@svc/domain/migration"
import { Teams } from "@svc/domain/team"
import {
  clientsFor,
  inProcessHttpClient,
  makeV1Handler,
  maxV1Body,
  type RoutesApp,
  type V1Answer,
  v1Error,
  v1Headers,
  v1Routes,
  v1Stats
} from "@svc/v1"
import { Effect, Layer } from "effect"
import { HttpClient, HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { callerOfToken } from "./AuthenticationLive.ts"
import { ServerConfig } from "./ServerConfig.ts"

/** How `/v1` answers (`V1_DEPRECATED_SINCE`, `V1_SUNSET`). */
export interface V1Options {
  /** When v1 was deprecated (`Deprecation: @<unix seconds>`); `Deprecation: true` without it. */
  readonly deprecatedSince?: Date | undefined
  /** When v1 stops answering (`Sunset`). */
  readonly sunset?: Date | undefined
}

/** The v1 routes' paths as router templates (`/v1/teams/:teamId/talent`), for the access log and metrics. */
export const v1RouteTemplates = v1Routes.map((route) => route.v1.path.replace(/\{(\w+)\}/g, ":$1"))

/** The v1 routes on the server's router; none without `options`. */
export const V1Route = (options: V1Options | undefined) =>
  HttpRouter.use(
    Effect.fnUntraced(function* (router) {
      if (options === undefined) return
      const teams = yield* Teams
      const callerOf = yield* callerOfToken
      const handle = makeV1Handler(yield* V1IdMap, {
        teamUsers: (token, team) =>
          callerOf(token).pipe(
            Effect.flatMap((caller) => Effect.mapError(teams.users(caller, team, {}), toApiError)),
            Effect.map((page) => page.users)
          )
      })
      // The router's app is complete once every route is added: taken at the first v1 call.
      let app: RoutesApp | undefined
      const client = inProcessHttpClient(() => {
        app ??= router.asHttpEffect()
        return app
      })
      // Any base: the in-process client reads only the path and query.
      const clients = clientsFor("http://in-process", Layer.succeed(HttpClient.HttpClient, client))
      const stats = v1Stats()
      // The `Link` names the API's docs at its public URL.
      const headers = v1Headers({ ...options, successor: (yield* ServerConfig).publicBaseUrl })
      const respond = (answer: V1Answer) =>
        HttpServerResponse.text(JSON.stringify(answer.body), {
          status: answer.status,
          contentType: "application/json",
          headers
        })

      yield* router.add(
        "*",
        "/v1/*",
        Effect.gen(function* () {
          const request = yield* HttpServerRequest.HttpServerRequest
          const url = new URL(request.url, "http://v1")
          const method = request.method.toUpperCase()
          if (method === "GET" && url.pathname === "/v1/_stats") return respond(stats.answer())
          const body = jsonOf(yield* request.text.pipe(Effect.orElseSucceed(() => undefined)))
          if (body === notJson) return respond(v1Error(400, "The request body must be JSON of at most 1 MiB"))
          const auth = request.headers.authorization
          const token = auth?.toLowerCase().startsWith("bearer ") ? auth.slice(7).trim() : undefined
          const result = yield* Effect.flatMap(clients(token), (client) => handle(method, url, body, client, token))
          stats.count(result.route)
          return respond(result.answer)
        })
      )
    })
  ).pipe(Layer.provide(Teams.layer))

/**
 * `/v1` answers in v1's error shape, `{message}`, also when the server's middleware answers before the route (a rate
 * limit, a timeout, a body that is not UTF-8): the v2 envelope's message, same status and headers.
 */
export const withV1Errors = <E, R>(
  app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R | HttpServerRequest.HttpServerRequest> =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
    request.url === "/v1" || request.url.startsWith("/v1/") || request.url.startsWith("/v1?")
      ? Effect.map(app, asV1Error)
      : app
  )

const decoder = new TextDecoder()

const asV1Error = (response: HttpServerResponse.HttpServerResponse) => {
  if (response.status < 400 || response.body._tag !== "Uint8Array") return response
  const envelope = (() => {
    try {
      return JSON.parse(decoder.decode(response.body.body)) as { success?: unknown; data?: unknown }
    } catch {
      return undefined
    }
  })()
  if (envelope?.success !== false) return response
  return HttpServerResponse.text(JSON.stringify({ message: String(envelope.data) }), {
    status: response.status,
    contentType: "application/json",
    headers: response.headers
  })
}

/** What a body that is not JSON of at most 1 MiB reads as. */
const notJson: unique symbol = Symbol("notJson")

/** A v1 body: nothing, JSON, or `notJson`. */
const jsonOf = (text: string | undefined): unknown => {
  if (text === undefined || text.length > maxV1Body) return notJson
  if (text === "") return undefined
  try {
    return JSON.parse(text)
  } catch {
    return notJson
  }
}
