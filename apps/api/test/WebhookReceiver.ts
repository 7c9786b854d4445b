/**
 * A webhook receiver for tests and benchmarks: a real `node:http` (or `node:https`) server on 127.0.0.1 that keeps
 * every request it gets and answers as told (204 by default; a status, headers and a body), closed with its scope.
 */
import { createServer, type IncomingHttpHeaders } from "node:http"
import { createServer as createTlsServer } from "node:https"
import type { AddressInfo } from "node:net"
import { Effect } from "effect"

/** One request the receiver got. */
export interface Received {
  readonly headers: IncomingHttpHeaders
  readonly body: string
  readonly at: number
}

/** How the receiver answers a request: a status, headers and a body (none unless given). */
export type Answer = (
  request: Received,
  index: number
) => { readonly status: number; readonly headers?: Record<string, string>; readonly body?: string }

/** A running receiver. */
export interface Receiver {
  readonly url: string
  readonly received: Array<Received>
  /** Changes how it answers from now on. */
  answer: Answer
  /** Resolves once `count` requests have arrived. */
  readonly waitFor: (count: number) => Effect.Effect<ReadonlyArray<Received>>
  /** Header lookup as `standardwebhooks` wants it. */
  readonly headersOf: (request: Received) => Record<string, string>
}

/**
 * Starts a receiver for the current scope: plain HTTP, or HTTPS with `tls` (a key and certificate for 127.0.0.1, which
 * the sender must trust, e.g. through `NODE_EXTRA_CA_CERTS`).
 */
export const startReceiver = (
  answer: Answer = () => ({ status: 204 }),
  tls?: { readonly key: string; readonly cert: string }
) =>
  Effect.acquireRelease(
    Effect.promise(
      () =>
        new Promise<{ receiver: Receiver; close: () => Promise<void> }>((resolve) => {
          const waiters: Array<{ count: number; resolve: () => void }> = []
          const receiver: Receiver = {
            url: "",
            received: [],
            answer,
            waitFor: (count) =>
              Effect.promise(
                () =>
                  new Promise<void>((done) => {
                    if (receiver.received.length >= count) return done()
                    waiters.push({ count, resolve: done })
                  })
              ).pipe(Effect.as(receiver.received)),
            headersOf: (request) => Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k, String(v)]))
          }
          const server = (tls === undefined ? createServer : createTlsServer.bind(null, tls))((req, res) => {
            const chunks: Array<Buffer> = []
            req.on("data", (c: Buffer) => chunks.push(c))
            req.on("end", () => {
              const request = { headers: req.headers, body: Buffer.concat(chunks).toString("utf8"), at: Date.now() }
              const index = receiver.received.length
              receiver.received.push(request)
              const { status, headers, body } = receiver.answer(request, index)
              res.writeHead(status, headers).end(body)
              for (const waiter of waiters.filter((w) => receiver.received.length >= w.count)) {
                waiters.splice(waiters.indexOf(waiter), 1)
                waiter.resolve()
              }
            })
          })
          server.keepAliveTimeout = 60_000
          server.listen(0, "127.0.0.1", () => {
            const { port } = server.address() as AddressInfo
            Object.assign(receiver, { url: `${tls === undefined ? "http" : "https"}://127.0.0.1:${port}/hook` })
            resolve({
              receiver,
              close: () =>
                new Promise((done) => {
                  server.closeAllConnections()
                  server.close(() => done())
                })
            })
          })
        })
    ),
    ({ close }) => Effect.promise(close)
  ).pipe(Effect.map(({ receiver }) => receiver))
