/**
 * Node's HTTP server under the API, started and stopped so that no request is left without an answer (issue 14,
 * docs/decisions/0036):
 * - The port is bound when the layer is built (port 0 resolves to the address the SIWE domain names), but no request
 *   reaches a handler before the routes are served: one that arrives earlier waits for them, as in the kernel's
 *   backlog, instead of being dropped with no listener (it hung forever before).
 * - Node's `headersTimeout` and `requestTimeout` bound receiving a request (slowloris); such a client is answered 408
 *   in the error envelope and the connection closed.
 * - Stopping stops accepting at once, lets requests in flight finish for a grace period, then closes every connection
 *   left (idle keep-alive sockets, uploads that never end), so a stop takes seconds whatever clients hold open.
 */
import { randomUUID } from "node:crypto"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { Socket } from "node:net"
import { NodeHttpServer } from "@effect/platform-node"
import { ErrorCatalog, type ErrorCode, errorBody } from "@svc/domain/errors"
import { Effect, Layer, Scope } from "effect"
import { HttpServer, HttpServerError } from "effect/http"
import * as NetAddress from "effect/net/NetAddress"

/** How the server listens, bounds receiving requests and stops. */
export interface NodeServerOptions {
  readonly port: number
  readonly host: string
  /** Receiving the request line and headers (Node's `headersTimeout`). */
  readonly headersTimeoutMillis: number
  /** Receiving the whole request, body included (Node's `requestTimeout`); at least `headersTimeoutMillis`. */
  readonly requestTimeoutMillis: number
  /** How long requests in flight may finish once stopping began, before their connections are closed. */
  readonly shutdownGraceMillis: number
}

type Handler = (request: IncomingMessage, response: ServerResponse) => void

const reasons: Partial<Record<ErrorCode, string>> = {
  HEADERS_TOO_LARGE: "Request Header Fields Too Large",
  REQUEST_TIMEOUT: "Request Timeout",
  MALFORMED_REQUEST: "Bad Request"
}

/** A complete error response written on the socket, for requests Node refuses before any handler sees them. */
const rawErrorResponse = (code: ErrorCode) => {
  const requestId = `req_${randomUUID().replaceAll("-", "")}`
  const body = JSON.stringify({ ...errorBody(code), request_id: requestId })
  return (
    `HTTP/1.1 ${ErrorCatalog[code].status} ${reasons[code] ?? "Bad Request"}\r\ncontent-type: application/json\r\n` +
    `x-request-id: ${requestId}\r\ncontent-length: ${Buffer.byteLength(body)}\r\n` +
    `connection: close\r\n\r\n${body}`
  )
}

/** Node's server with its receive bounds, answering what it cannot parse or receive in time in the envelope. */
const makeNodeServer = (options: NodeServerOptions) => {
  const server = createServer({
    headersTimeout: options.headersTimeoutMillis,
    requestTimeout: Math.max(options.requestTimeoutMillis, options.headersTimeoutMillis),
    // How often Node checks both bounds (default 30 s): a fraction of the smaller one.
    connectionsCheckingInterval: Math.max(10, Math.min(1000, Math.floor(options.headersTimeoutMillis / 4)))
  })
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Socket) => {
    // A response already under way cannot be replaced by another: the connection is cut, as Node does.
    const started = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent
    if (!socket.writable || started === true) return socket.destroy()
    const code: ErrorCode =
      error.code === "HPE_HEADER_OVERFLOW"
        ? "HEADERS_TOO_LARGE"
        : error.code === "ERR_HTTP_REQUEST_TIMEOUT"
          ? "REQUEST_TIMEOUT"
          : "MALFORMED_REQUEST"
    socket.end(rawErrorResponse(code))
  })
  return server
}

/**
 * An `HttpServer` on Node's: listening when built, serving once the routes are, stopping gracefully then for good
 * when the scope closes.
 */
export const make = Effect.fnUntraced(function* (options: NodeServerOptions) {
  const server = makeNodeServer(options)
  // Requests that arrive before the routes are served wait here; `serve` hands them over.
  let handler: Handler | undefined
  const waiting: Array<readonly [IncomingMessage, ServerResponse]> = []
  // Requests in flight (received, response not closed), so a stop knows when nothing is left to wait for.
  let inFlight = 0
  let onIdle: (() => void) | undefined
  server.on("request", (request: IncomingMessage, response: ServerResponse) => {
    inFlight++
    response.once("close", () => {
      inFlight--
      if (inFlight === 0) onIdle?.()
    })
    if (handler === undefined) waiting.push([request, response])
    else handler(request, response)
  })

  /** Stops accepting, waits up to the grace for requests in flight, then closes every connection left. */
  const stop = Effect.callback<void>((resume) => {
    let done = false
    const finish = () => {
      if (done) return
      done = true
      clearTimeout(timer)
      onIdle = undefined
      server.closeAllConnections()
      resume(Effect.void)
    }
    const timer = setTimeout(finish, options.shutdownGraceMillis)
    onIdle = finish
    // `close` stops accepting and closes idle keep-alive connections; the ones serving a request close after it.
    if (server.listening) server.close()
    // Without a handler (a start that failed) the waiting requests can never finish: close them now.
    if (inFlight === 0 || handler === undefined) finish()
  })

  yield* Effect.acquireRelease(
    Effect.callback<void, HttpServerError.ServeError>((resume) => {
      const onError = (cause: Error) => resume(Effect.fail(new HttpServerError.ServeError({ cause })))
      server.once("error", onError)
      server.listen({ port: options.port, host: options.host }, () => {
        server.off("error", onError)
        resume(Effect.void)
      })
    }),
    // A start that fails after the port is bound also answers (by closing) the requests that waited.
    () => stop
  )

  const bound = server.address()
  if (bound === null || typeof bound === "string") {
    return yield* Effect.die(new Error(`unexpected server address: ${String(bound)}`))
  }
  const address = yield* Effect.fromResult(NetAddress.inetAddressFromIpString(bound.address, bound.port)).pipe(
    Effect.mapError((cause) => new HttpServerError.ServeError({ cause }))
  )

  return HttpServer.make({
    address,
    serve: Effect.fnUntraced(function* (httpApp, middleware) {
      const serveScope = yield* Effect.scope
      const requests = Scope.forkUnsafe(serveScope, "parallel")
      const serving = yield* NodeHttpServer.makeHandler(httpApp, {
        // biome-ignore lint/suspicious/noExplicitAny: the platform's own `make` passes the middleware the same way
        middleware: middleware as any,
        scope: requests
      }) as Effect.Effect<Handler>
      // Added after `requests` was forked, so it runs first: requests finish (or are cut) before their scope closes.
      yield* Scope.addFinalizer(serveScope, stop)
      handler = serving
      for (const [request, response] of waiting.splice(0)) serving(request, response)
    })
  })
})

/** The server, with the platform services the router needs (as `NodeHttpServer.layer` provides them). */
export const layer = (options: NodeServerOptions) =>
  Layer.mergeAll(Layer.effect(HttpServer.HttpServer, make(options)), NodeHttpServer.layerHttpServices)
