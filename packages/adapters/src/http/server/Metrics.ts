/**
 * Metrics in the Prometheus text format (issue 22, item 1), from Effect's own metrics (`Metric`,
 * `PrometheusMetrics`): every HTTP request counted and timed by method, route template (never the raw path, so ids do
 * not multiply the series) and status; the domain's own counters (payments executed, webhook deliveries) beside them.
 * `GET /metrics` serves them: openly in embedded mode, behind `METRICS_TOKEN` as a bearer token in production.
 */
import { timingSafeEqual } from "node:crypto"
import { createServer } from "node:http"
import { ChainGateway } from "@svc/domain/chain"
import { type Backlog, EventOutbox } from "@svc/domain/event"
import { StorageHealth } from "@svc/domain/StorageHealth"
import { WebhookDeliveryStore } from "@svc/domain/webhook"
import { Clock, Context, Duration, Effect, Layer, Metric, Option, Redacted } from "effect"
import { HttpRouter, HttpServerError, HttpServerRequest, HttpServerResponse } from "effect/http"
import { HttpApi, type HttpApiGroup } from "effect/http-api"
import { PrometheusMetrics } from "effect/observability"
import { AccessLog, logAnswer } from "./AccessLog.ts"
import { countersAtZero } from "./Counters.ts"
import { httpDuration, httpRequests } from "./RequestMetrics.ts"
import { bearerCredential } from "./VerifiedToken.ts"

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
  // Paths seen are remembered (bounded: ids make paths many), so a repeated path is matched once.
  const known = new Map<string, string>()
  const match = (path: string) => {
    const parts = path.split("/")
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
  return (url) => {
    const path = url.split("?")[0] ?? ""
    let template = known.get(path)
    if (template === undefined) {
      template = match(path)
      if (known.size >= 10_000) known.clear()
      known.set(path, template)
    }
    return template
  }
}

/** Whether answers are counted and timed (`ServerOptions.httpMetrics`; off only to measure what it costs). */
export class HttpMetricsEnabled extends Context.Reference<boolean>("@svc/adapters/http/server/HttpMetricsEnabled", {
  defaultValue: () => true
}) {}

/** Figures read from the stores and the chain each time the metrics are scraped. */
const gauges = {
  databaseUp: Metric.gauge("svc_database_up", { description: "1 when the database answered the scrape's ping" }),
  outboxPending: Metric.gauge("svc_outbox_pending_events", { description: "Events recorded and not fanned out yet" }),
  outboxLag: Metric.gauge("svc_outbox_lag_seconds", {
    description: "Age of the oldest event not fanned out yet (0 when none)"
  }),
  webhookBacklog: Metric.gauge("svc_webhook_backlog_deliveries", {
    description: "Webhook deliveries pending (due now or waiting for a retry)"
  }),
  webhookBacklogAge: Metric.gauge("svc_webhook_backlog_oldest_seconds", {
    description: "Age of the oldest pending webhook delivery (0 when none)"
  }),
  relayerBalance: Metric.gauge("svc_relayer_balance_wei", { description: "A relayer key's gas balance, in wei" }),
  relayerNonce: Metric.gauge("svc_relayer_nonce", { description: "A relayer key's transactions mined so far" }),
  relayerPending: Metric.gauge("svc_relayer_pending_transactions", {
    description: "A relayer key's journaled transactions not final yet"
  }),
  relayerOldestPending: Metric.gauge("svc_relayer_oldest_pending_seconds", {
    description: "How long a relayer key's oldest transaction not final yet has been out (0 when none)"
  })
}

/** How long each figure may take to read: a slow dependency must not hold the scrape. */
const readTimeout = Duration.seconds(2)

/** The figure `read` gives, or nothing when it fails or is slow (its gauge keeps its last value). */
const sample = <A, E>(read: Effect.Effect<A, E>, record: (value: A) => Effect.Effect<void>) =>
  read.pipe(
    Effect.timeout(readTimeout),
    Effect.flatMap(record),
    Effect.catchCause(() => Effect.void)
  )

/**
 * Reads the gauges: the database's health, the outbox's lag, the webhook backlog and, with a chain, each relayer
 * key's balance, nonce and pending transactions. Each from the service when this process has it.
 */
export const collectGauges = Effect.gen(function* () {
  const now = yield* Clock.currentTimeMillis
  /** A queue's size and the age of its oldest entry, in seconds (0 when empty). */
  const backlogOf = (read: Effect.Effect<Backlog>, size: Metric.Gauge<number>, age: Metric.Gauge<number>) =>
    sample(read, (backlog) =>
      Effect.andThen(
        Metric.update(size, backlog.count),
        Metric.update(age, backlog.oldest === undefined ? 0 : Math.max(0, now - backlog.oldest) / 1000)
      )
    )
  const storage = yield* Effect.serviceOption(StorageHealth)
  const outbox = yield* Effect.serviceOption(EventOutbox)
  const deliveries = yield* Effect.serviceOption(WebhookDeliveryStore)
  const chain = yield* ChainGateway.present
  yield* Effect.all(
    [
      Option.isNone(storage)
        ? Effect.void
        : storage.value.ping.pipe(
            Effect.timeout(readTimeout),
            Effect.as(1),
            Effect.catchCause(() => Effect.succeed(0)),
            Effect.flatMap((up) => Metric.update(gauges.databaseUp, up))
          ),
      Option.isNone(outbox) ? Effect.void : backlogOf(outbox.value.backlog, gauges.outboxPending, gauges.outboxLag),
      Option.isNone(deliveries)
        ? Effect.void
        : backlogOf(deliveries.value.backlog, gauges.webhookBacklog, gauges.webhookBacklogAge),
      Option.isNone(chain)
        ? Effect.void
        : sample(chain.value.relayerHealth, (keys) =>
            Effect.forEach(
              keys,
              (key) => {
                const of = <A>(gauge: Metric.Metric<A, unknown>) =>
                  Metric.withAttributes(gauge, { address: key.address })
                return Effect.all([
                  Metric.update(of(gauges.relayerBalance), Number(key.balance)),
                  Metric.update(of(gauges.relayerNonce), key.nonce),
                  Metric.update(of(gauges.relayerPending), key.pending),
                  Metric.update(of(gauges.relayerOldestPending), (key.oldestPendingMillis ?? 0) / 1000)
                ])
              },
              { discard: true }
            )
          )
    ],
    { concurrency: "unbounded", discard: true }
  )
})

/** The metrics, gauges read first, in the Prometheus text format. */
const scrape = Effect.andThen(collectGauges, PrometheusMetrics.format())

/** The Prometheus text format's content type. */
const prometheusContentType = "text/plain; version=0.0.4; charset=utf-8"

/** The counter and histogram of one method, route template and status: made once, so each answer only updates them. */
const series = new Map<string, { readonly requests: typeof httpRequests; readonly duration: typeof httpDuration }>()

/** The methods counted by name; any other (a client may send any token) is `OTHER`, so the series stay few. */
const knownMethods = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"])

const seriesOf = (requestMethod: string, route: string, status: number) => {
  const method = knownMethods.has(requestMethod) ? requestMethod : "OTHER"
  const key = `${method} ${status} ${route}`
  let found = series.get(key)
  if (found === undefined) {
    const attributes = { method, route, status: String(status) }
    found = {
      requests: Metric.withAttributes(httpRequests, attributes),
      duration: Metric.withAttributes(httpDuration, attributes)
    }
    series.set(key, found)
  }
  return found
}

/**
 * Wraps the app (outside `withRequestId`): each answer counted and timed under its method, route template and status
 * (`HttpMetricsEnabled`), and logged in one line (`AccessLog`).
 */
export const withHttpObservability =
  (templateOf: RouteTemplateOf) =>
  <E, R>(app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
    Effect.gen(function* () {
      const counted = yield* HttpMetricsEnabled
      const logged = yield* AccessLog
      if (!counted && !logged) return yield* app
      const request = yield* HttpServerRequest.HttpServerRequest
      const started = performance.now()
      const response = yield* app
      const seconds = (performance.now() - started) / 1000
      const route = templateOf(request.url)
      if (counted) {
        const series = seriesOf(request.method, route, response.status)
        yield* Effect.withFiber((fiber) => {
          series.requests.updateUnsafe(1, fiber.context)
          series.duration.updateUnsafe(seconds, fiber.context)
          return Effect.void
        })
      }
      if (logged) yield* logAnswer(request, response, route, seconds)
      return response
    })

/**
 * Whether the request's bearer credential is `token`, compared in constant time. The credential is read as every
 * route reads it (`bearerCredential`): the scheme in any letter case (RFC 9110 §11.1), then the token.
 */
const bearerMatches = (token: Redacted.Redacted<string>) =>
  Effect.map(bearerCredential, (credential) => {
    const expected = Buffer.from(Redacted.value(token))
    const given = Buffer.from(Redacted.value(credential))
    return given.length === expected.length && timingSafeEqual(given, expected)
  })

/**
 * `GET /metrics`: the Prometheus text format, every documented counter in it from the first scrape (`Counters.ts`).
 * With `token`, only for `Authorization: Bearer <token>` (401 otherwise), so a production deployment never shows it
 * by accident.
 */
export const MetricsRoute = (token: Redacted.Redacted<string> | undefined) =>
  Layer.effectDiscard(countersAtZero).pipe(
    Layer.merge(
      HttpRouter.add(
        "GET",
        "/metrics",
        Effect.gen(function* () {
          if (token !== undefined && !(yield* bearerMatches(token))) {
            return HttpServerResponse.text("metrics need the METRICS_TOKEN bearer token\n", {
              status: 401,
              headers: { "www-authenticate": 'Bearer realm="metrics"' }
            })
          }
          return HttpServerResponse.text(yield* scrape, { contentType: prometheusContentType })
        })
      )
    )
  )

/**
 * `GET /metrics` on a port of its own (`METRICS_PORT`), for a scraper on a private network: that listener serves
 * nothing else (404), and needs no token. Fails with the listen error (`ServeError`) when the port cannot be opened.
 */
export const MetricsListener = (options: { readonly port: number; readonly host: string }) =>
  Layer.effectDiscard(
    Effect.gen(function* () {
      yield* countersAtZero
      const context = yield* Effect.context<never>()
      const format = Effect.runPromiseWith(context)
      const server = createServer((request, response) => {
        if (request.method !== "GET" || request.url?.split("?")[0] !== "/metrics") {
          response.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end("only GET /metrics here\n")
          return
        }
        format(scrape).then(
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
