/**
 * `proxy`: a v1-compatible server onto a v2 API (DESIGN §5b). It serves `@svc/v1`'s handler over its own HTTP server,
 * carrying each call out on the v2 API at `target` with the typed client. The id map is its only state, so any number
 * of proxies can share one store behind a load balancer. (The API can serve the same handler in-process on `/v1`,
 * without this hop: decision 0074.)
 *
 * Every answer carries `Deprecation` (and `Sunset` when configured); `GET /v1/_stats` counts the v1 calls per route.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import { NodeHttpClient } from "@effect/platform-node"
import { V1IdMap } from "@svc/domain/migration"
import { clientsFor, makeV1Handler, maxV1Body, type V1Answer, v1Error, v1Headers, v1Stats } from "@svc/v1"
import { Effect, Layer } from "effect"

/** How the proxy runs. */
export interface ProxyOptions {
  /** The v2 API's base URL. */
  readonly target: string
  readonly port: number
  readonly host?: string | undefined
  /** When v1 was deprecated (`Deprecation: @<unix seconds>`); `Deprecation: true` without it. */
  readonly deprecatedSince?: Date | undefined
  /** When v1 stops answering (`Sunset`, an HTTP date). */
  readonly sunset?: Date | undefined
}

/** A running proxy. */
export interface RunningProxy {
  readonly url: string
  readonly server: Server
  /** v1 calls per route (`METHOD /v1/path/{param}`), since the start. */
  readonly stats: () => Record<string, number>
}

const readBody = (request: IncomingMessage) =>
  new Promise<string>((resolve, reject) => {
    const chunks: Array<Buffer> = []
    let size = 0
    request.on("data", (chunk: Buffer) => {
      size += chunk.length
      if (size > maxV1Body) {
        reject(new Error("too large"))
        request.destroy()
      } else chunks.push(chunk)
    })
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")))
    request.on("error", reject)
  })

/** Starts the proxy for the current scope (closed with it); the id map comes from the context. */
export const serveProxy = Effect.fn("Proxy.serve")(function* (options: ProxyOptions) {
  const ids = yield* V1IdMap
  const context = yield* Effect.context<never>()
  const handle = makeV1Handler(ids)
  // One connection pool for every caller's client, built once for the proxy's life.
  const httpClient = Layer.succeedContext(yield* Layer.build(NodeHttpClient.layerUndici))
  const clients = clientsFor(options.target.replace(/\/$/, ""), httpClient)
  const stats = v1Stats()
  const headers = v1Headers({ ...options, successor: options.target })

  const respond = (response: ServerResponse, answer: V1Answer) => {
    const text = JSON.stringify(answer.body)
    response.writeHead(answer.status, {
      "content-type": "application/json",
      "content-length": Buffer.byteLength(text),
      ...headers
    })
    response.end(text)
  }

  const serve = async (request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? "/", "http://proxy")
    const method = (request.method ?? "GET").toUpperCase()
    if (method === "GET" && url.pathname === "/v1/_stats") {
      respond(response, stats.answer())
      return
    }
    let body: unknown
    try {
      const text = await readBody(request)
      body = text === "" ? undefined : JSON.parse(text)
    } catch {
      respond(response, v1Error(400, "The request body must be JSON of at most 1 MiB"))
      return
    }
    const auth = request.headers.authorization
    const token = auth?.toLowerCase().startsWith("bearer ") ? auth.slice(7).trim() : undefined
    const result = await Effect.runPromiseWith(context)(
      Effect.flatMap(clients(token), (client) => handle(method, url, body, client, token))
    )
    stats.count(result.route)
    respond(response, result.answer)
  }

  const server = createServer((request, response) => {
    serve(request, response).catch((error) => {
      if (!response.headersSent) respond(response, v1Error(500, `The proxy failed: ${String(error)}`))
    })
  })
  yield* Effect.acquireRelease(
    Effect.callback<void>((resume) => {
      server.once("error", (error) => resume(Effect.die(error)))
      server.listen(options.port, options.host ?? "127.0.0.1", () => resume(Effect.void))
    }),
    () =>
      Effect.callback<void>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  )
  const address = server.address()
  const port = typeof address === "object" && address !== null ? address.port : options.port
  return {
    url: `http://${options.host ?? "127.0.0.1"}:${port}`,
    server,
    stats: stats.snapshot
  } satisfies RunningProxy
})
