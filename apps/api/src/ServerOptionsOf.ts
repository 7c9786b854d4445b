/**
 * The server's options (`Server.ServerOptions`) from the configuration `npm start` read (AppConfig.ts): the rules that
 * tell embedded mode from production (decision 0087) applied in one place.
 */
import { SmtpMailer } from "@svc/adapters/mail"
import { Option, Redacted } from "effect"
import type { AppConfig } from "./AppConfig.ts"
import * as ChainSignatureVerifier from "./ChainSignatureVerifier.ts"
import type * as Server from "./Server.ts"
import { otlpHeadersOf } from "./Tracing.ts"

/**
 * The server's options from the configuration and what start-up settled: the storage it opened, the secrets (the
 * configured ones, else the embedded data directory's) and the chain's RPC URL, when there is one.
 */
export const serverOptionsOf = (
  config: AppConfig,
  started: {
    readonly storage: Server.ServerOptions["storage"]
    readonly jwtSecret: Redacted.Redacted<string>
    readonly webhookSecretKey: Redacted.Redacted<string>
    readonly rpcUrl: string | undefined
  }
): Server.ServerOptions => {
  const {
    port,
    host,
    allowPrivateConfig,
    publicBaseUrl,
    metricsToken,
    metricsPort,
    tracesUrl,
    otlpHeaders,
    serviceName,
    smtpUrl,
    mailFrom,
    inviteTtlDays,
    rateLimits,
    requestTimeoutMillis,
    headersTimeoutMillis,
    shutdownGraceMillis,
    settlementWaitMillis,
    claimLeaseMillis,
    retention,
    serveV1,
    v1Dates,
    issuedMaxBytes,
    issuedMaxCount,
    embedded,
    chainId,
    consoleDirectory
  } = config
  const { storage, jwtSecret, webhookSecretKey, rpcUrl } = started
  return {
    port,
    host,
    storage,
    jwtSecret,
    webhookSecretKey,
    // DESIGN §5b: https only in production; loopback and private addresses by default in embedded mode only.
    webhookUrls: { requireHttps: !embedded, allowPrivate: Option.getOrElse(allowPrivateConfig, () => embedded) },
    chainId,
    publicBaseUrl: Option.getOrUndefined(publicBaseUrl),
    // Without SMTP_URL (embedded mode only: production requires it) mails are written to the log, one block each.
    mailer: Option.isSome(smtpUrl)
      ? SmtpMailer.layer({ url: smtpUrl.value, from: Option.getOrUndefined(mailFrom) })
      : undefined,
    inviteTtlDays,
    rateLimits,
    requestTimeoutMillis,
    headersTimeoutMillis,
    shutdownGraceMillis,
    settlementWaitMillis: Option.getOrUndefined(settlementWaitMillis),
    claimLeaseMillis: Option.getOrUndefined(claimLeaseMillis),
    retention,
    issuedRequests: {
      ...(Option.isSome(issuedMaxBytes) ? { maxBytes: issuedMaxBytes.value } : {}),
      ...(Option.isSome(issuedMaxCount) ? { maxCount: issuedMaxCount.value } : {})
    },
    // With a node to ask, contract wallets (ERC-1271, ERC-6492) can sign in too.
    signatureVerifier: rpcUrl === undefined ? undefined : ChainSignatureVerifier.layer(rpcUrl),
    // Metrics: open on the embedded server; production requires METRICS_PORT or METRICS_TOKEN (AppConfig), so they
    // are never public by accident.
    metrics:
      Option.isSome(metricsToken) || Option.isSome(metricsPort) || embedded
        ? { token: Option.getOrUndefined(metricsToken), port: Option.getOrUndefined(metricsPort) }
        : undefined,
    v1: serveV1
      ? {
          deprecatedSince: Option.getOrUndefined(Option.map(v1Dates.deprecatedSince, (ms) => new Date(ms))),
          sunset: Option.getOrUndefined(Option.map(v1Dates.sunset, (ms) => new Date(ms)))
        }
      : undefined,
    console: { directory: consoleDirectory },
    traces:
      tracesUrl === undefined
        ? undefined
        : {
            url: tracesUrl,
            headers: otlpHeadersOf(Option.match(otlpHeaders, { onNone: () => undefined, onSome: Redacted.value })),
            serviceName
          }
  }
}
