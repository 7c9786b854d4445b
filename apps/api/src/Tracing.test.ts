/**
 * Traces over OTLP/HTTP (issue 22, item 2): a local OTLP receiver (a plain `node:http` server taking the JSON
 * encoding) gets the spans of a server settling on anvil. One PUT /v2/payments sent with a caller's W3C `traceparent`
 * is one trace under the caller's span, from the HTTP request through the use case and the storage calls to the
 * chain call; and the webhook delivery it causes carries its attempt's span on, as `traceparent`.
 */
import { randomBytes } from "node:crypto"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { assert, describe, it } from "@effect/vitest"
import { eventually } from "@svc/adapters/test/Eventually"
import { signableOf, type TypedDataBundle } from "@svc/domain/eip712"
import { Effect } from "effect"
import { ChainTestServer, call, fundedTeam, startChainTestServerWith } from "../test/TestServer.ts"
import { startReceiver } from "../test/WebhookReceiver.ts"
import { otlpHeadersOf, tracesUrlOf } from "./Tracing.ts"

/** One span as OTLP/JSON carries it. */
interface ReceivedSpan {
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId?: string
  readonly name: string
  readonly kind: number
  readonly attributes: ReadonlyArray<{ readonly key: string; readonly value: { readonly stringValue?: string } }>
}

/** A local OTLP/HTTP receiver for the scope: every span it was sent, and the headers of the exports. */
const otlpReceiver = Effect.acquireRelease(
  Effect.promise(async () => {
    const spans: Array<ReceivedSpan> = []
    const headers: Array<Record<string, string | Array<string> | undefined>> = []
    const server = createServer((request, response) => {
      const chunks: Array<Buffer> = []
      request.on("data", (chunk: Buffer) => chunks.push(chunk))
      request.on("end", () => {
        headers.push(request.headers)
        const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
          resourceSpans: Array<{ scopeSpans: Array<{ spans: Array<ReceivedSpan> }> }>
        }
        for (const resource of body.resourceSpans) for (const scope of resource.scopeSpans) spans.push(...scope.spans)
        response.writeHead(200, { "content-type": "application/json" }).end("{}")
      })
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    const { port } = server.address() as AddressInfo
    return { url: `http://127.0.0.1:${port}/v1/traces`, spans, headers, server }
  }),
  ({ server }) => Effect.promise(() => new Promise<void>((resolve) => server.close(() => resolve())))
)

const attributeOf = (span: ReceivedSpan, key: string) => span.attributes.find((a) => a.key === key)?.value.stringValue

describe("traces", () => {
  it("the standard variables name the endpoint; headers are read as the specification writes them", () => {
    assert.strictEqual(tracesUrlOf({}), undefined)
    assert.strictEqual(tracesUrlOf({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318/" }), "http://c:4318/v1/traces")
    assert.strictEqual(
      tracesUrlOf({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://t/x" }),
      "http://t/x"
    )
    assert.strictEqual(
      tracesUrlOf({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_SDK_DISABLED: "true" }),
      undefined
    )
    assert.deepStrictEqual(otlpHeadersOf("api-key=a%3Db, x = 1,bad"), { "api-key": "a=b", x: "1" })
  })

  it.live(
    "one PUT /v2/payments is one trace under the caller's traceparent, reaching storage and the chain",
    () =>
      Effect.gen(function* () {
        const otlp = yield* otlpReceiver
        const chain = yield* startChainTestServerWith({
          traces: { url: otlp.url, exportIntervalMillis: 100, headers: { "x-collector-key": "k1" } }
        })
        const { server } = chain
        const t = yield* fundedTeam(100_000_000n).pipe(Effect.provideService(ChainTestServer, chain))
        const receiver = yield* startReceiver()
        const hook = yield* call(server, "POST", "/v2/webhooks", {
          token: t.token,
          body: { team_nanoid: t.team, url: receiver.url, events: ["payment.sent"], name: "traced" }
        })
        assert.strictEqual(hook.status, 200, JSON.stringify(hook.body))
        const body = {
          from: t.team,
          to: [{ to: t.employee.user, amount_cents: 500, currency_symbol: "USD", invoice_description: "traced" }],
          pay_now: true
        }
        const issued = yield* call(server, "POST", "/v2/payments", { token: t.token, body })
        assert.strictEqual(issued.status, 200, JSON.stringify(issued.body))
        const bundle = issued.body.data as TypedDataBundle
        const traceId = randomBytes(16).toString("hex")
        const callerSpan = randomBytes(8).toString("hex")
        const paid = yield* call(server, "PUT", "/v2/payments", {
          token: t.token,
          headers: { traceparent: `00-${traceId}-${callerSpan}-01` },
          body: {
            ...body,
            signer: t.admin.address,
            typed_data: bundle.typed_data,
            signature: yield* Effect.promise(() => t.admin.signTypedData(signableOf(bundle) as never))
          }
        })
        assert.strictEqual(paid.status, 200, JSON.stringify(paid.body))

        // The server span ends last: once it arrived, the whole trace did (batches go every 100 ms).
        const inTrace = () => otlp.spans.filter((span) => span.traceId === traceId)
        const serverSpanOf = () => inTrace().find((span) => span.parentSpanId === callerSpan)
        const serverSpan = yield* eventually(serverSpanOf, { what: "the server span under the caller's" })
        assert.strictEqual(serverSpan?.kind, 2) // SPAN_KIND_SERVER
        assert.strictEqual(attributeOf(serverSpan, "http.request.method"), "PUT")
        assert.strictEqual(attributeOf(serverSpan, "url.path"), "/v2/payments")

        // One tree: every span of the trace hangs from another of its spans, up to the server's.
        const spans = inTrace()
        const ids = new Set(spans.map((span) => span.spanId))
        for (const span of spans) {
          if (span !== serverSpan) assert.isTrue(ids.has(span.parentSpanId ?? ""), `${span.name} is not in the tree`)
        }
        const names = spans.map((span) => span.name)
        assert.include(names, "PaymentExecution.executePayments", names.join(", "))
        assert.isTrue(
          names.some((name) => name.startsWith("PaymentLedger.")),
          `no storage call in ${names.join(", ")}`
        )
        assert.isTrue(
          names.some((name) => name.startsWith("ChainGateway.execute")),
          `no chain call in ${names.join(", ")}`
        )
        // The POST before it was a trace of its own, and the exports carried the configured header.
        assert.isTrue(
          otlp.spans.some((span) => span.traceId !== traceId && attributeOf(span, "url.path") === "/v2/payments")
        )
        assert.strictEqual(otlp.headers[0]?.["x-collector-key"], "k1")

        // The webhook delivery carries its attempt's trace context on: a trace the receiver can join.
        const [delivered] = yield* receiver.waitFor(1)
        const traceparent = String(delivered?.headers.traceparent ?? "")
        assert.match(traceparent, /^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/)
        const [, deliveryTrace, deliverySpan] = traceparent.split("-")
        const attempt = yield* eventually(() => otlp.spans.find((span) => span.spanId === deliverySpan), {
          what: "the delivery attempt's span"
        })
        assert.strictEqual(attempt?.traceId, deliveryTrace)
        assert.strictEqual(attempt?.name, "WebhookDispatcher.attempt")
      }).pipe(Effect.scoped),
    { timeout: 120_000 }
  )
})
