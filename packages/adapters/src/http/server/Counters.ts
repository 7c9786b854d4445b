/**
 * Every counter docs/operations.md lists, present in `/metrics` from the first scrape at zero (issue 35): a counter
 * appears only once it is first updated, so until then a dashboard's `rate(...)` finds no series and reads "no data"
 * where it should read 0. Each series of a documented label value is made at zero; the HTTP counter's, whose labels
 * are the requests themselves, by the series of the scrape's own route.
 */
import type { RequestError } from "@svc/domain/chain"
import { paymentsExecuted, paymentsFailed, paymentsIssued } from "@svc/domain/payment"
import { webhookAttempts } from "@svc/domain/webhook"
import { Effect, Metric } from "effect"
import { transactionsReorganised } from "../../evm/RelayerMonitor.ts"
import { rateLimited } from "./RateLimit.ts"
import { httpRequests } from "./RequestMetrics.ts"

/**
 * The refusals a failed request is counted by: those that release its claim (`claimAfter`); a `SaltReplayed` or a
 * `SendOutcomeUnknown` goes to recovery, which settles it, and is not a failure.
 */
const failureReasons: Record<Exclude<RequestError["_tag"], "SaltReplayed" | "SendOutcomeUnknown">, true> = {
  RequestExpired: true,
  InvalidSignature: true,
  SignerNotAuthorised: true,
  UnknownAccount: true,
  InsufficientBalance: true,
  InvalidRequest: true,
  SettlementReverted: true,
  ChainUnreachable: true
}

/** Each documented series, at zero. */
const series: ReadonlyArray<Metric.Metric<number, unknown>> = [
  Metric.withAttributes(httpRequests, { method: "GET", route: "/metrics", status: "200" }),
  ...(["ip", "user", "sign_in", "bytes"] as const).map((limit) => Metric.withAttributes(rateLimited, { limit })),
  paymentsIssued,
  ...["true", "false"].map((pay_now) => Metric.withAttributes(paymentsExecuted, { pay_now })),
  ...Object.keys(failureReasons).map((reason) => Metric.withAttributes(paymentsFailed, { reason })),
  transactionsReorganised,
  ...["delivered", "retry", "gone"].map((outcome) => Metric.withAttributes(webhookAttempts, { outcome }))
]

/** Makes every documented counter's series, at zero (adding 0 to one that already counted changes nothing). */
export const countersAtZero = Effect.forEach(series, (counter) => Metric.update(counter, 0), { discard: true })
