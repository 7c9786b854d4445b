/**
 * Metrics in the Prometheus text format (issue 22, item 1), from Effect's own metrics (`Metric`,
 * `PrometheusMetrics`): every HTTP request counted and timed by method, route template (never the raw path, so ids do
 * not multiply the series) and status; the domain's own counters (payments executed, webhook deliveries) beside them.
 * `GET /metrics` serves them: openly in embedded mode, behind `METRICS_TOKEN` as a bearer token in production.
 */
import { timingSafeEqual } from "node:crypto"
import { createServer } from "node:http"
import { Effect, Layer, Metric, Redacted } from "effect"
import { HttpRouter, HttpServerError, HttpServerRequest, HttpServerResponse } from "effect/http"
import { HttpApi, type HttpApiGroup } from "effect/http-api"
import { PrometheusMetrics } from "effect/observability"

/** Requests answered, by method, route template and status. */
export const httpRequests = Metric.counter("svc_http_requests_total", {
  description: "HTTP requests answered, by method, route template and status",
  incremental: true
})

/** How long requests took to answer, by method, route template and status. */
export const httpDuration = Metric.histogram("svc_http_request_duration_seconds", {
  description: "Time to answer an HTTP request, by method, route template and status",
  boundaries: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]
})

/** The route template a path is served by (`/v2/teams/{team_nanoid}`), or `unmatched`. */
export type RouteTemplateOf = (path: string) => string

/** Route templates of `api`'s endpoints and of `extra` paths (pages, docs), the most literal match winning. */
export const routeTemplatesOf = <Id extends string, Groups extends HttpApiGroup.Constraint>(
  api: HttpApi.HttpApi<Id, Groups>,
  extra: ReadonlyArray<string> = []
): RouteTemplateOf => {
  const paths = new Set(extra)
  HttpApi.reflect(api, { onGroup: () => undefined, onEndpoint: ({ endpoint }) => void paths.add(endpoint.path) })
  const routes = [...paths].map((path) => {
    const segments = path.split("/")
    return {
      segments,
      literals: segments.filter((segment) => !segment.startsWith(":")).length,
      template: segments.map((segment) => (segment.startsWith(":") ? `{${segment.slice(1)}}` : segment)).join("/")
    }
  })
  return (path) => {
    const parts = path.split("?")[0]?.split("/") ?? []
    let best: (typeof routes)[number] | undefined
    for (const route of routes) {
      if (route.segments.length !== parts.length || (best !== undefined && route.literals <= best.literals)) continue
      const fits = route.segments.every((segment, index) =>
        segment.startsWith(":") ? (parts[index] ?? "") !== "" : segment === parts[index]
      )
      if (fits) best = route
    }
    return best?.template ?? "unmatched"
  }
}

/** Wraps the app: each answer counted and timed under its method, route template and status. */
export const withHttpMetrics =
  (templateOf: RouteTemplateOf) =>
  <E, R>(app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
    Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      const started = performance.now()
      const response = yield* app
      const attributes = { method: request.method, route: templateOf(request.url), status: String(response.status) }
      yield* Metric.update(Metric.withAttributes(httpRequests, attributes), 1)
      yield* Metric.update(Metric.withAttributes(httpDuration, attributes), (performance.now() - started) / 1000)
      return response
    })

/** The Prometheus text format's content type. */
const prometheusContentType = "text/plain; version=0.0.4; charset=utf-8"

/** Whether `header` is `Bearer <token>`, compared in constant time. */
const bearerMatches = (header: string | undefined, token: Redacted.Redacted<string>) => {
  const expected = Buffer.from(`Bearer ${Redacted.value(token)}`)
  const given = Buffer.from(header ?? "")
  return given.length === expected.length && timingSafeEqual(given, expected)
}

/**
 * `GET /metrics`: the Prometheus text format. With `token`, only for `Authorization: Bearer <token>` (401 otherwise),
 * so a production deployment never shows it by accident.
 */
export const MetricsRoute = (token: Redacted.Redacted<string> | undefined) =>
  HttpRouter.add("GET", "/metrics", (request: HttpServerRequest.HttpServerRequest) =>
    token !== undefined && !bearerMatches(request.headers.authorization, token)
      ? Effect.succeed(
          HttpServerResponse.text("metrics need the METRICS_TOKEN bearer token\n", {
            status: 401,
            headers: { "www-authenticate": 'Bearer realm="metrics"' }
          })
        )
      : Effect.map(PrometheusMetrics.format(), (text) =>
          HttpServerResponse.text(text, { contentType: prometheusContentType })
        )
  )

/**
 * `GET /metrics` on a port of its own (`METRICS_PORT`), for a scraper on a private network: that listener serves
 * nothing else (404), and needs no token. Fails with the listen error (`ServeError`) when the port cannot be opened.
 */
export const MetricsListener = (options: { readonly port: number; readonly host: string }) =>
  Layer.effectDiscard(
    Effect.gen(function* () {
      const context = yield* Effect.context<never>()
      const format = Effect.runPromiseWith(context)
      const server = createServer((request, response) => {
        if (request.method !== "GET" || request.url?.split("?")[0] !== "/metrics") {
          response.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end("only GET /metrics here\n")
          return
        }
        format(PrometheusMetrics.format()).then(
          (text) => response.writeHead(200, { "content-type": prometheusContentType }).end(text),
          () => response.writeHead(500).end()
        )
      })
      yield* Effect.acquireRelease(
        Effect.callback<void, HttpServerError.ServeError>((resume) => {
          server.once("error", (cause) => resume(Effect.fail(new HttpServerError.ServeError({ cause }))))
          server.listen(options.port, options.host, () => resume(Effect.void))
        }),
        () => Effect.callback<void>((resume) => void server.close(() => resume(Effect.void)))
      )
    })
  )
