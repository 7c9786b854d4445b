import { JongodbDatabase } from "@svc/adapters/embedded"
import type { RateLimitSettings, V1Options } from "@svc/adapters/http/server"
import { type MongoSchemaTooNew, MongoStorage, type MongoTimeouts, type MongoUnreachable } from "@svc/adapters/mongo"
import { type SqliteDatabaseError, SqliteStorage } from "@svc/adapters/sqlite"
import type { HttpWebhookSender } from "@svc/adapters/webhooks"
import type { ChainGateway } from "@svc/domain/chain"
import type { Mailer } from "@svc/domain/mail"
import type { IssuedRequestLimits } from "@svc/domain/payment"
import type { RetentionWindows } from "@svc/domain/retention"
import type { SignatureVerifier } from "@svc/domain/signature"
import type { TeamBalances } from "@svc/domain/team"
import type { DispatcherOptions, WebhookUrlRules } from "@svc/domain/webhook"
import { type Duration, Layer, type Redacted } from "effect"
import type { TraceExport } from "./Tracing.ts"

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
   * How long a claim of a request's execution holds unless its holder renews it (ms; env `CLAIM_LEASE_MS`, default
   * 20000; decision 0093): a holder that died or was paused loses it within this, and recovery takes the request over.
   */
  readonly claimLeaseMillis?: number | undefined
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
  /** The web console's build, served at `/console` (`CONSOLE_DIR`; issue 40); not served without it. */
  readonly console?: { readonly directory: string } | undefined
}

/**
 * Every storage port on the chosen database: SQLite (the file is created, or migrated, at start) or MongoDB (indexes
 * created at start; on jongodb, the test server, through the layer that stands in for a replica set).
 */
export const storage = (options: StorageOptions): Layer.Layer<Storage, StorageError> =>
  options._tag === "sqlite"
    ? SqliteStorage.layer({ filename: options.filename, busyTimeoutMillis: options.busyTimeoutMillis })
    : MongoStorage.ports.pipe(
        Layer.provide(
          JongodbDatabase.layerDetected({ uri: options.uri, database: options.database, timeouts: options.timeouts })
        )
      )

/** The storage ports, as `storage` provides them (each database provides them all). */
export type Storage = Layer.Success<ReturnType<typeof SqliteStorage.layer>>

/** Why the database could not be opened at start. */
export type StorageError = SqliteDatabaseError | MongoUnreachable | MongoSchemaTooNew

/** The defaults of the timeouts (docs/operations.md). */
export const defaultTimeouts = { requestMillis: 30_000, headersMillis: 10_000, shutdownGraceMillis: 5_000 } as const
