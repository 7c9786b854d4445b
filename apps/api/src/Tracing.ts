/**
 * Traces over OTLP/HTTP (issue 22, item 2), with Effect's own exporter (`effect/observability`, decision 0071). With an
 * endpoint, every request is a server span (its W3C `traceparent` taken as the parent), every use case an
 * `Effect.fn` span, every storage call a span named `<Port>.<method>` and every chain call a `ChainGateway.*` or
 * `Relayer.*` span. Without one, tracing is off: spans are neither made nor exported.
 */
import { Context, Duration, Effect, Layer, References } from "effect"
import { FetchHttpClient } from "effect/http"
import { OtlpSerialization, OtlpTracer } from "effect/observability"

/** Where spans go. */
export interface TraceExport {
  /** The OTLP/HTTP traces URL (`…/v1/traces`). */
  readonly url: string
  /** Headers sent with each export (a collector's API key). */
  readonly headers?: Readonly<Record<string, string>> | undefined
  /** How often batches are sent (default 5 s); on stop, what is left is sent. */
  readonly exportIntervalMillis?: number | undefined
  /** `service.name` (default `svc-api`). */
  readonly serviceName?: string | undefined
}

/**
 * The traces endpoint the standard OpenTelemetry variables name: `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` as given, or
 * `OTEL_EXPORTER_OTLP_ENDPOINT` with `/v1/traces` appended; undefined without either, or with `OTEL_SDK_DISABLED`.
 */
export const tracesUrlOf = (env: Readonly<Record<string, string | undefined>>): string | undefined => {
  if (env.OTEL_SDK_DISABLED === "true") return undefined
  const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT
  if (traces !== undefined && traces !== "") return traces
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT
  return base === undefined || base === "" ? undefined : `${base.replace(/\/+$/, "")}/v1/traces`
}

/** `OTEL_EXPORTER_OTLP_HEADERS` (`key=value,key2=value2`, values URL-encoded), as the specification reads it. */
export const otlpHeadersOf = (value: string | undefined): Record<string, string> => {
  const headers: Record<string, string> = {}
  for (const pair of (value ?? "").split(",")) {
    const at = pair.indexOf("=")
    if (at <= 0) continue
    headers[decodeURIComponent(pair.slice(0, at).trim())] = decodeURIComponent(pair.slice(at + 1).trim())
  }
  return headers
}

/** The OTLP tracer, and tracing turned on; `undefined`: tracing off. */
export const tracing = (options: TraceExport | undefined) =>
  options === undefined
    ? Layer.succeed(References.TracerEnabled, false)
    : Layer.merge(
        OtlpTracer.layer({
          url: options.url,
          headers: options.headers,
          resource: { serviceName: options.serviceName ?? "svc-api" },
          exportInterval: Duration.millis(options.exportIntervalMillis ?? 5000)
        }).pipe(Layer.provide([FetchHttpClient.layer, OtlpSerialization.layerJson])),
        Layer.succeed(References.TracerEnabled, true)
      )

/** `@svc/domain/payment/PaymentLedger` → `PaymentLedger`. */
const portNameOf = (key: string) => key.slice(key.lastIndexOf("/") + 1)

/** A port whose calls that answer an effect each run in a span `<Port>.<method>`; other members as they are. */
const tracedPort = (name: string, port: Record<string, unknown>): Record<string, unknown> => {
  const traced: Record<string, unknown> = {}
  for (const key of Object.keys(port)) {
    const member = port[key]
    traced[key] =
      typeof member === "function"
        ? (...args: Array<unknown>) => {
            const result = member.apply(port, args)
            return Effect.isEffect(result) ? Effect.withSpan(result, `${name}.${key}`, { kind: "client" }) : result
          }
        : member
  }
  return traced
}

/**
 * Every domain port `layer` provides (storage: repositories, ledgers, stores) with its calls in spans, for traces
 * that reach the database. Only used when tracing is on: the wrapper costs a call.
 */
export const tracedPorts = <A, E, R>(layer: Layer.Layer<A, E, R>): Layer.Layer<A, E, R> =>
  Layer.effectContext(
    Effect.map(Layer.build(layer), (context) =>
      Context.makeUnsafe<A>(
        new Map(
          [...context.mapUnsafe].map(([key, service]): [string, unknown] => [
            key,
            key.startsWith("@svc/domain/") && typeof service === "object" && service !== null
              ? tracedPort(portNameOf(key), service as Record<string, unknown>)
              : service
          ])
        )
      )
    )
  )
