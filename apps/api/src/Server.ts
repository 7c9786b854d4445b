/**
 * The API server as a Layer: the HttpApi contract with its handlers, the error envelope, idempotency keys, OpenAPI
 * at `/openapi.json` and docs at `/docs`, over SQLite (the embedded default) or MongoDB (to scale out).
 */
import { randomBytes, randomUUID } from "node:crypto"
import { SignerKeys } from "@svc/adapters/evm"
import { AccessTokens } from "@svc/adapters/http"
import {
  AccessLog,
  AuthenticationLive,
  AuthHandlers,
  BalanceHandlers,
  DepositHandlers,
  defaultRateLimits,
  HttpMetricsEnabled,
  InProcessRequest,
  InviteHandlers,
  InviteHandlersWithoutChain,
  InvitePage,
  MetricsListener,
  MetricsRoute,
  methodsOf,
  PaymentHandlers,
  PendingBalanceHandlers,
  PendingPaymentHandlers,
  type RateLimitSettings,
  RateLimits,
  RequestTimeout,
  routeTemplatesOf,
  ServerConfig,
  SystemHandlers,
  TeamHandlers,
  type V1Options,
  V1Route,
  v1RouteTemplates,
  WebhookHandlers,
  withAllowedMethods,
  withErrorEnvelope,
  withHttpObservability,
  withIdempotency,
  withRateLimits,
  withRequestId,
  withRequestTimeout,
  withUtf8Bodies,
  withV1Errors
} from "@svc/adapters/http/server"
import { LogMailer } from "@svc/adapters/mail"
import { MongoStorage, type MongoTimeouts, type MongoUnreachable } from "@svc/adapters/mongo"
import { type SqliteDatabaseError, SqliteStorage } from "@svc/adapters/sqlite"
import { HttpWebhookSender, WebhookSecretBox } from "@svc/adapters/webhooks"
import { Api, servedApi } from "@svc/contract"
import type { ChainGateway } from "@svc/domain/chain"
import { IdGenerator } from "@svc/domain/Ids"
import { InviteExpiry, InviteSettings, Invites } from "@svc/domain/invite"
import { type Mailer, MailWorker } from "@svc/domain/mail"
import { TeamAccess } from "@svc/domain/membership"
import {
  defaultIssuedRequestLimits,
  IssuedRequestExpiry,
  type IssuedRequestLimits,
  IssuedRequestPolicy,
  SettlementWait
} from "@svc/domain/payment"
import { Randomness } from "@svc/domain/Randomness"
import { defaultRetention, type RetentionWindows, RetentionWorker } from "@svc/domain/retention"
import type { SignatureVerifier } from "@svc/domain/signature"
import { TeamBalances } from "@svc/domain/team"
import { type DispatcherOptions, WebhookDispatcher, WebhookUrlPolicy, type WebhookUrlRules } from "@svc/domain/webhook"
import { Context, type Duration, Effect, identity, Layer, Redacted, type Scope, Tracer } from "effect"
import { HttpRouter, type HttpServerRequest, type HttpServerResponse } from "effect/http"
import { HttpApiBuilder, HttpApiScalar } from "effect/http-api"
import * as NodeServer from "./NodeServer.ts"
import { type TraceExport, tracedPorts, tracing } from "./Tracing.ts"

/**
 * Where the server keeps its state: a SQLite file (the embedded default; `":memory:"` keeps nothing), or MongoDB, the
 * shared state of any number of processes on many machines (docs/decisions/0021).
 */
export type StorageOptions =
  | { readonly _tag: "sqlite"; readonly filename: string; readonly busyTimeoutMillis?: number | undefined }
  | {
      readonly _tag: "mongo"
      readonly uri: string
      readonly database?: string | undefined
      /** The driver's bounds (`MONGODB_SERVER_SELECTION_TIMEOUT_MS`, `_CONNECT_TIMEOUT_MS`, `_SOCKET_TIMEOUT_MS`). */
      readonly timeouts?: MongoTimeouts | undefined
    }

/** What the server needs to know. */
export interface ServerOptions {
  readonly port: number
  readonly host?: string | undefined
  /**
   * Default: an in-memory SQLite database, which keeps nothing after the server stops (tests and tools). A storage
   * layer already built (`storage(...)`) serves too: `npm start` opens the database before anything else starts.
   */
  readonly storage?: StorageOptions | Layer.Layer<Storage> | undefined
  /** The JWT signing secret; without it one is generated for this server's lifetime. */
  readonly jwtSecret?: Redacted.Redacted<string> | undefined
  /** The URL clients reach the server at; the SIWE domain and URI derive from it. Default `http://127.0.0.1:<port>`. */
  readonly publicBaseUrl?: string | undefined
  readonly chainId?: number | undefined
  /** Signature checks for sign-in; EOA recovery unless the chain adapter supplies ERC-1271 support. */
  readonly signatureVerifier?: Layer.Layer<SignatureVerifier> | undefined
  /** Whether to log every request (default true). */
  readonly logRequests?: boolean | undefined
  /** Team balances for team views; zero unless the chain adapter supplies them. */
  readonly teamBalances?: Layer.Layer<TeamBalances> | undefined
  /**
   * The chain. With it the payment and balance routes are served (docs/decisions/0016); without, they answer 501
   * after the permission check.
   */
  readonly chain?: Layer.Layer<ChainGateway> | undefined
  /** Where mails go (SMTP in production); default the log, for embedded mode and tests. */
  readonly mailer?: Layer.Layer<Mailer> | undefined
  /** How long an invite stays pending (`INVITE_TTL_DAYS`, default 7). */
  readonly inviteTtlDays?: number | undefined
  /**
   * Limits on issued payment requests not executed yet (default `defaultIssuedRequestLimits`: 1000 requests and
   * 8 MiB per team, executable 10 minutes, kept an hour after expiry; env `ISSUED_REQUESTS_*`), and how often the
   * sweep deletes expired ones (default every minute).
   */
  readonly issuedRequests?: (Partial<IssuedRequestLimits> & { readonly sweepEvery?: Duration.Input }) | undefined
  /**
   * How long PUT /v2/payments waits for its transaction to be final before answering 202 with it in flight (ms; env
   * `SETTLEMENT_WAIT_MS`, default 20000; decision 0061).
   */
  readonly settlementWaitMillis?: number | undefined
  /**
   * How long what only grows is kept once done (ms per kind, `RETENTION_*_DAYS`; default `defaultRetention`), and how
   * often the pruning worker runs (default every 10 minutes; it runs with the other workers).
   */
  readonly retention?:
    | { readonly windows?: Partial<RetentionWindows> | undefined; readonly every?: Duration.Input | undefined }
    | undefined
  /** Whether this process also runs the mail worker, the invite and issued-request sweeps and retention (default true). */
  readonly workers?: boolean | undefined
  /** The key webhook signing secrets are sealed with (decision 0024); without it one for this server's lifetime. */
  readonly webhookSecretKey?: Redacted.Redacted<string> | undefined
  /** Which endpoint URLs are accepted (DESIGN §5b); default http or https, loopback and private allowed (tests). */
  readonly webhookUrls?: WebhookUrlRules | undefined
  /** How webhook URLs' host names are resolved (default the system's; tests fix a table). */
  readonly webhookResolver?: HttpWebhookSender.Resolver | undefined
  /** The webhook dispatcher this process runs (default DESIGN §5's); `false` runs none. */
  readonly webhookDispatcher?: Partial<DispatcherOptions> | false | undefined
  /** Requests per minute per client IP, per user and for sign-in (decision 0035); default `defaultRateLimits`. */
  readonly rateLimits?: RateLimitSettings | undefined
  /** How long a request may take before it is answered 503 (`REQUEST_TIMEOUT_MS`, default 30 s). */
  readonly requestTimeoutMillis?: number | undefined
  /** How long receiving the request line and headers may take (`HEADERS_TIMEOUT_MS`, default 10 s). */
  readonly headersTimeoutMillis?: number | undefined
  /** How long requests in flight may finish on stop before their connections close (`SHUTDOWN_GRACE_MS`, 5 s). */
  readonly shutdownGraceMillis?: number | undefined
  /**
   * Where spans go over OTLP/HTTP (`OTEL_EXPORTER_OTLP_ENDPOINT`, Tracing.ts). Without it requests, use cases and
   * storage calls open no spans: nothing would export them, so they would only cost.
   */
  readonly traces?: TraceExport | undefined
  /** Whether answers are counted and timed for `/metrics` (default true; off only to measure what that costs). */
  readonly httpMetrics?: boolean | undefined
  /**
   * `GET /metrics` in the Prometheus text format: served when given, only to `Authorization: Bearer <token>` when it
   * has a token (`METRICS_TOKEN`; embedded mode serves it openly). With `port` (`METRICS_PORT`) it is served on that
   * port instead, alone, on `host`; and on the API's port too only with a token. Not served without it.
   */
  readonly metrics?:
    | {
        readonly token?: Redacted.Redacted<string> | undefined
        readonly port?: number | undefined
      }
    | undefined
  /** v1 served on `/v1` in this process (`SERVE_V1`; decision 0074); not served without it. */
  readonly v1?: V1Options | undefined
}

/**
 * Every storage port on the chosen database: SQLite (the file is created, or migrated, at start) or MongoDB (indexes
 * created at start).
 */
export const storage = (options: StorageOptions): Layer.Layer<Storage, StorageError> =>
  options._tag === "sqlite"
    ? SqliteStorage.layer({ filename: options.filename, busyTimeoutMillis: options.busyTimeoutMillis })
    : MongoStorage.layer({ uri: options.uri, database: options.database, timeouts: options.timeouts })

/** The storage ports, as `storage` provides them (each database provides them all). */
export type Storage = Layer.Success<ReturnType<typeof SqliteStorage.layer>>

/** Why the database could not be opened at start. */
export type StorageError = SqliteDatabaseError | MongoUnreachable

/** 405 for a served path asked with another method. */
const allowedMethods = withAllowedMethods(methodsOf(Api))

/**
 * Every answer counted and timed by method, route template and status, and logged in one line with its request id
 * (issue 22; Effect's own request logger runs outside the request id's annotation, so it is off).
 */
const httpObservability = withHttpObservability(
  routeTemplatesOf(Api, ["/invites/accept", "/metrics", "/docs", "/openapi.json", ...v1RouteTemplates])
)

/**
 * Every route, the middleware around them, OpenAPI and docs, and `/v1` when `v1` is given; needs storage and the
 * server's services.
 */
const makeRoutes = <A, E, R>(payments: Layer.Layer<A, E, R>, v1: V1Options | undefined) =>
  Layer.mergeAll(
    // The document names the server's public URL (`servers`, and the guide's examples call it).
    Layer.unwrap(
      Effect.map(ServerConfig, (config) => {
        const api = servedApi(config.publicBaseUrl)
        return Layer.mergeAll(
          HttpApiBuilder.layer(api, { openapiPath: "/openapi.json" }).pipe(
            Layer.provide([SystemHandlers, AuthHandlers, TeamHandlers, payments, WebhookHandlers, DepositHandlers]),
            Layer.provide(AuthenticationLive)
          ),
          // The Scalar bundle is inlined (no CDN); its default web fonts would be fetched from one, so system fonts.
          HttpApiScalar.layer(api, {
            path: "/docs",
            scalar: {
              withDefaultFonts: false,
              hideModels: true,
              authentication: { preferredSecurityScheme: "bearer" }
            }
          })
        )
      })
    ),
    // The page an invite e-mail links to (issue 21).
    InvitePage.pipe(Layer.provide(Invites.layer), Layer.provide(TeamAccess.layer)),
    V1Route(v1),
    HttpRouter.middleware(
      Effect.map(
        Effect.all([withIdempotency, withRateLimits]),
        ([idempotency, rateLimits]) =>
          <E>(app: Effect.Effect<HttpServerResponse.HttpServerResponse, E>) => {
            // Every failure becomes a response here; the router's type only lets middleware pass its errors through.
            // A limited request is refused before anything runs; the timeout is outside idempotency, which releases
            // its claim when interrupted.
            const v1Errors = v1 === undefined ? identity : withV1Errors
            const outer = httpObservability(
              withRequestId(
                v1Errors(
                  rateLimits(withUtf8Bodies(withRequestTimeout(idempotency(withErrorEnvelope(allowedMethods(app))))))
                )
              )
            )
            // A v1 call's v2 requests in this process: the v1 call went through the rest once.
            const inner = withErrorEnvelope(allowedMethods(app))
            return Effect.withFiber((fiber) => (fiber.getRef(InProcessRequest) ? inner : outer)) as Effect.Effect<
              HttpServerResponse.HttpServerResponse,
              E,
              HttpServerRequest.HttpServerRequest
            >
          }
      ),
      { global: true }
    )
  )

/** The routes with payments, balance and manager invites served on the chain. */
export const Routes = (v1: V1Options | undefined) =>
  makeRoutes(Layer.mergeAll(PaymentHandlers, BalanceHandlers, InviteHandlers), v1)

/**
 * The routes with payments and balance answering 501 after the permission check. They need a subset of what
 * `Routes` needs, so they are typed as `Routes` and one server layer serves either.
 */
export const RoutesWithoutChain = (v1: V1Options | undefined) =>
  makeRoutes(
    Layer.mergeAll(PendingPaymentHandlers, PendingBalanceHandlers, InviteHandlersWithoutChain),
    v1
  ) as unknown as ReturnType<typeof Routes>

/** Invite settings: links point at the server's public URL. */
const inviteSettings = (options: ServerOptions) =>
  Layer.unwrap(
    Effect.map(ServerConfig, (config) =>
      InviteSettings.make({ publicBaseUrl: config.publicBaseUrl, ttlDays: options.inviteTtlDays })
    )
  )

/** The services handlers use, other than storage. */
export const services = (options: ServerOptions) =>
  Layer.mergeAll(
    webhookServices(options),
    AccessTokens.make(options.jwtSecret ?? Redacted.make(randomBytes(48).toString("base64url"))),
    IdGenerator.layer,
    Randomness.layer,
    options.signatureVerifier ?? SignerKeys.layer,
    options.teamBalances ?? TeamBalances.layerZero,
    options.mailer ?? LogMailer.layer,
    RateLimits.layer(options.rateLimits ?? defaultRateLimits),
    Layer.succeed(RequestTimeout, options.requestTimeoutMillis ?? defaultTimeouts.requestMillis),
    Layer.succeed(IssuedRequestPolicy, issuedRequestLimits(options)),
    options.settlementWaitMillis === undefined
      ? Layer.empty
      : Layer.succeed(SettlementWait, options.settlementWaitMillis),
    // Spans cost a little on every call: made only when they are exported (issue 22).
    tracing(options.traces),
    Layer.succeed(AccessLog, options.logRequests !== false),
    Layer.succeed(HttpMetricsEnabled, options.httpMetrics !== false)
  ).pipe(Layer.provideMerge(inviteSettings(options)), Layer.provideMerge(serverConfig(options)))

const serverConfig = (options: ServerOptions) =>
  options.publicBaseUrl === undefined
    ? ServerConfig.fromServerAddress({ chainId: options.chainId ?? 42161 })
    : ServerConfig.make({ publicBaseUrl: options.publicBaseUrl, chainId: options.chainId ?? 42161 })

/** The limits on issued payment requests: the defaults, with what `options` sets. */
const issuedRequestLimits = (options: ServerOptions): IssuedRequestLimits => {
  const { sweepEvery: _sweepEvery, ...limits } = options.issuedRequests ?? {}
  return { ...defaultIssuedRequestLimits, ...limits }
}

/**
 * The storage-only workers every API process runs unless told not to: mail delivery, invite expiry, the sweep of
 * expired issued requests and retention (one process at a time prunes, under its lease).
 */
const workers = (options: ServerOptions) =>
  Layer.mergeAll(
    MailWorker.layer(),
    InviteExpiry.layer().pipe(Layer.provide(Invites.layer), Layer.provide(TeamAccess.layer)),
    IssuedRequestExpiry.layer({ every: options.issuedRequests?.sweepEvery }),
    RetentionWorker.layer({
      windows: { ...defaultRetention, ...options.retention?.windows },
      worker: `api-${process.pid}-${randomUUID().slice(0, 8)}`,
      every: options.retention?.every
    })
  )

/** Webhook delivery: the URL rules, the sender on them, and the secret box. */
const webhookServices = (options: ServerOptions) =>
  Layer.mergeAll(
    options.webhookResolver === undefined
      ? HttpWebhookSender.layer
      : HttpWebhookSender.layerWith(options.webhookResolver),
    WebhookSecretBox.layer(options.webhookSecretKey ?? Redacted.make(WebhookSecretBox.newKey()))
  ).pipe(Layer.provideMerge(WebhookUrlPolicy.layer(options.webhookUrls ?? { requireHttps: false, allowPrivate: true })))

/** The webhook dispatcher every API process runs (DESIGN §5), unless asked not to. */
const dispatcher = (options: ServerOptions) =>
  options.webhookDispatcher === false
    ? Layer.empty
    : WebhookDispatcher.worker({
        worker: `api-${process.pid}-${randomUUID().slice(0, 8)}`,
        ...options.webhookDispatcher
      })

/** The defaults of the timeouts (docs/operations.md). */
export const defaultTimeouts = { requestMillis: 30_000, headersMillis: 10_000, shutdownGraceMillis: 5_000 } as const

/**
 * The routes served by Node's HTTP server on `port` (0 picks a free one). Requests arriving before the routes are
 * served wait for them; on stop, requests in flight finish within the grace, then every connection closes
 * (NodeServer.ts, decision 0036).
 */
export const layer = (options: ServerOptions) => detached(served(options))

/**
 * `layer` built without the span it is built in: the routes and workers keep the context they are built in, so each
 * request and each worker pass would otherwise be a child of that span, all of them one endless trace.
 */
const detached = <A, E, R>(layer: Layer.Layer<A, E, R>): Layer.Layer<A, E, R> =>
  Layer.effectContext(
    Effect.updateContext(
      Layer.build(layer),
      (context: Context.Context<R | Scope.Scope>) =>
        Context.omit(Tracer.ParentSpan)(context) as Context.Context<R | Scope.Scope>
    )
  )

const served = (options: ServerOptions) => {
  // Without a chain nothing reads it (the 501 routes); the cast keeps one layer type.
  const chain = (options.chain ?? Layer.empty) as Layer.Layer<ChainGateway>
  const chainRoutes = (options.chain === undefined ? RoutesWithoutChain : Routes)(options.v1)
  const metrics = options.metrics
  const routes =
    metrics === undefined || (metrics.port !== undefined && metrics.token === undefined)
      ? chainRoutes
      : Layer.merge(chainRoutes, MetricsRoute(metrics.token))
  const metricsListener =
    metrics?.port === undefined
      ? Layer.empty
      : MetricsListener({ port: metrics.port, host: options.host ?? "127.0.0.1" })
  return Layer.mergeAll(
    HttpRouter.serve(options.workers === false ? routes : Layer.merge(routes, workers(options)), {
      disableListenLog: true,
      disableLogger: true,
      // Paths match as written: `/V2/TEAMS` and `//v2/...` name no route (the router folds both by default).
      routerConfig: { caseSensitive: true, ignoreDuplicateSlashes: false }
    }),
    dispatcher(options),
    metricsListener
  ).pipe(
    Layer.provideMerge(services(options)),
    Layer.provideMerge(chain),
    Layer.provideMerge(
      (options.traces === undefined ? identity : tracedPorts)(
        Layer.isLayer(options.storage)
          ? (options.storage as Layer.Layer<Storage>)
          : storage((options.storage as StorageOptions | undefined) ?? { _tag: "sqlite", filename: ":memory:" })
      )
    ),
    Layer.provideMerge(
      NodeServer.layer({
        port: options.port,
        host: options.host ?? "127.0.0.1",
        headersTimeoutMillis: options.headersTimeoutMillis ?? defaultTimeouts.headersMillis,
        // Node's bound on receiving the request is a backstop: the handler's own timeout answers first.
        requestTimeoutMillis:
          (options.headersTimeoutMillis ?? defaultTimeouts.headersMillis) +
          (options.requestTimeoutMillis ?? defaultTimeouts.requestMillis),
        shutdownGraceMillis: options.shutdownGraceMillis ?? defaultTimeouts.shutdownGraceMillis
      })
    )
  )
}
