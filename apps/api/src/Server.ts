/**
 * The API server as a Layer: the HttpApi contract with its handlers, the error envelope, idempotency keys, OpenAPI
 * at `/openapi.json` and docs at `/docs`, over SQLite (the embedded default) or MongoDB (to scale out).
 */
import { randomBytes } from "node:crypto"
import { SignerKeys } from "@svc/adapters/evm"
import { AccessTokens } from "@svc/adapters/http"
import {
  AccessLog,
  AuthenticationLive,
  AuthHandlers,
  BalanceHandlers,
  ConsoleRoute,
  DepositHandlers,
  defaultRateLimits,
  FaviconRoute,
  HttpMetricsEnabled,
  InProcessRequest,
  InviteHandlers,
  InvitePage,
  InvoiceHandlers,
  MetricsListener,
  MetricsRoute,
  methodsOf,
  PaymentHandlers,
  PayoutHandlers,
  PayoutReportHandlers,
  PayoutReportPage,
  PayScheduleHandlers,
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
  withCompressedPages,
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
import { PdfInvoiceRenderer } from "@svc/adapters/pdf"
import { HttpWebhookSender, WebhookSecretBox } from "@svc/adapters/webhooks"
import { Api, servedApi } from "@svc/contract"
import { ChainGateway } from "@svc/domain/chain"
import { ClaimLease } from "@svc/domain/eip712"
import { IdGenerator } from "@svc/domain/Ids"
import { InviteExpiry, InviteSettings, Invites } from "@svc/domain/invite"
import { MailWorker } from "@svc/domain/mail"
import { TeamAccess } from "@svc/domain/membership"
import {
  defaultIssuedRequestLimits,
  Executions,
  IssuedRequestExpiry,
  type IssuedRequestLimits,
  IssuedRequestPolicy,
  SettlementWait
} from "@svc/domain/payment"
import { Randomness } from "@svc/domain/Randomness"
import { defaultRetention, RetentionWorker } from "@svc/domain/retention"
import { TeamBalances } from "@svc/domain/team"
import { WebhookDispatcher, WebhookUrlPolicy } from "@svc/domain/webhook"
import { Context, Effect, identity, Layer, Redacted, type Scope, Tracer } from "effect"
import { HttpRouter, type HttpServerRequest, type HttpServerResponse } from "effect/http"
import { HttpApiBuilder, HttpApiScalar } from "effect/http-api"
import * as NodeServer from "./NodeServer.ts"
import type { ServerOptions, Storage, StorageOptions } from "./ServerOptions.ts"
import { defaultTimeouts, storage } from "./ServerOptions.ts"
import { tracedPorts, tracing } from "./Tracing.ts"

export * from "./ServerOptions.ts"

/** 405 for a served path asked with another method. */
const allowedMethods = withAllowedMethods(methodsOf(Api))

/**
 * Every answer counted and timed by method, route template and status, and logged in one line with its request id
 * (issue 22; Effect's own request logger runs outside the request id's annotation, so it is off).
 */
const httpObservability = withHttpObservability(
  routeTemplatesOf(Api, [
    "/invites/accept",
    "/withdraw-account/report",
    "/metrics",
    "/docs",
    "/openapi.json",
    "/favicon.ico",
    "/console",
    "/console/:page",
    "/console/assets/:file",
    "/console/:team/:page",
    "/console/:team/:page/:id",
    ...v1RouteTemplates
  ])
)

/** The documents and pages sent whole: compressed when asked, with a validator (issue 35). */
const compressedPages = withCompressedPages(new Set(["/docs", "/openapi.json", "/invites/accept", "/favicon.ico"]))

/**
 * Every route, the middleware around them, OpenAPI and docs, and `/v1` when `v1` is given; needs storage and the
 * server's services.
 */
const makeRoutes = <A, E, R>(
  payments: Layer.Layer<A, E, R>,
  v1: V1Options | undefined,
  consoleDirectory: string | undefined
) =>
  Layer.mergeAll(
    // The document names the server's public URL (`servers`, and the guide's examples call it).
    Layer.unwrap(
      Effect.map(ServerConfig, (config) => {
        const api = servedApi(config.publicBaseUrl)
        return Layer.mergeAll(
          HttpApiBuilder.layer(api, { openapiPath: "/openapi.json" }).pipe(
            Layer.provide([
              SystemHandlers,
              AuthHandlers,
              TeamHandlers,
              payments,
              WebhookHandlers,
              DepositHandlers,
              InvoiceHandlers,
              PayoutHandlers,
              PayoutReportHandlers
            ]),
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
    // The page an invite e-mail links to (issue 21), and the icon pages ask for.
    InvitePage.pipe(Layer.provide(Invites.layer), Layer.provide(TeamAccess.layer)),
    // The page a payout address notice links to, to report the change (decision 0108).
    PayoutReportPage,
    FaviconRoute,
    V1Route(v1),
    // The web console (issue 40), from the same origin as the API it calls.
    ConsoleRoute(consoleDirectory),
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
              compressedPages(
                withRequestId(
                  v1Errors(
                    rateLimits(withUtf8Bodies(withRequestTimeout(idempotency(withErrorEnvelope(allowedMethods(app))))))
                  )
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

/**
 * Every route. Without a chain the same handlers run on `ChainGateway.layerAbsent`: what needs the chain answers 501
 * after the caller's permission is checked (decision 0078).
 */
export const Routes = (v1: V1Options | undefined, consoleDirectory?: string) =>
  makeRoutes(
    Layer.mergeAll(PaymentHandlers, BalanceHandlers, InviteHandlers, PayScheduleHandlers),
    v1,
    consoleDirectory
  )

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
    PdfInvoiceRenderer.layer,
    RateLimits.layer(options.rateLimits ?? defaultRateLimits),
    Layer.succeed(RequestTimeout, options.requestTimeoutMillis ?? defaultTimeouts.requestMillis),
    Layer.succeed(IssuedRequestPolicy, issuedRequestLimits(options)),
    options.settlementWaitMillis === undefined
      ? Layer.empty
      : Layer.succeed(SettlementWait, options.settlementWaitMillis),
    options.claimLeaseMillis === undefined ? Layer.empty : Layer.succeed(ClaimLease, options.claimLeaseMillis),
    // Executions go on after their PUT answered; a graceful stop gives them the grace requests get (decision 0093).
    Executions.layer({ graceMillis: options.shutdownGraceMillis ?? defaultTimeouts.shutdownGraceMillis }),
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
  options.webhookDispatcher === false ? Layer.empty : WebhookDispatcher.worker({ ...options.webhookDispatcher })

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
  const chain = options.chain ?? ChainGateway.layerAbsent(options.chainId ?? 42161)
  const chainRoutes = Routes(options.v1, options.console?.directory)
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
