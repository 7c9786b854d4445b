/**
 * The local receiver of `svc listen`: an HTTP server on this machine that accepts webhook deliveries, checks each
 * one's Standard Webhooks signature with the `standardwebhooks` package (the endpoint's `whsec_` secret, several
 * `v1,` entries during a rotation, timestamps within five minutes), and hands the verified event on.
 */
import { createServer, type IncomingHttpHeaders } from "node:http"
import type { AddressInfo } from "node:net"
import { Effect } from "effect"
import { Webhook } from "standardwebhooks"
import { CliFailure } from "./Failure.ts"

/** A delivery whose signature checked out. */
export interface VerifiedDelivery {
  /** The body exactly as received. */
  readonly body: string
  /** The parsed envelope (`{object, id, created, event_type, ...}`). */
  readonly event: Record<string, unknown>
  /** The Standard Webhooks headers and the content type, to forward as they came. */
  readonly headers: Record<string, string>
}

/** What the receiver reports. */
export type ReceiverReport =
  | { readonly _tag: "Verified"; readonly delivery: VerifiedDelivery }
  | { readonly _tag: "Rejected"; readonly reason: string }

const forwardedHeaders = ["webhook-id", "webhook-timestamp", "webhook-signature", "x-svc-signature", "content-type"]

const headersOf = (headers: IncomingHttpHeaders): Record<string, string> => {
  const picked: Record<string, string> = {}
  for (const name of forwardedHeaders) {
    const value = headers[name]
    if (typeof value === "string") picked[name] = value
  }
  return picked
}

/**
 * Serves on `host:port` (0 for any free port) for the current scope. `secret` is read at each delivery: the endpoint
 * is registered (and its secret known) only once the receiver's URL is. Answers the receiver's base URL.
 */
export const startReceiver = (options: {
  readonly host: string
  readonly port: number
  readonly secret: () => string | undefined
  readonly onReport: (report: ReceiverReport) => Promise<void> | void
}): Effect.Effect<string, CliFailure, import("effect").Scope.Scope> =>
  Effect.acquireRelease(
    Effect.callback<ReturnType<typeof createServer>, CliFailure>((resume) => {
      const server = createServer((request, response) => {
        const chunks: Array<Buffer> = []
        request.on("data", (chunk: Buffer) => chunks.push(chunk))
        request.on("end", async () => {
          const body = Buffer.concat(chunks).toString("utf8")
          const headers = headersOf(request.headers)
          const secret = options.secret()
          let report: ReceiverReport
          if (request.method !== "POST") report = { _tag: "Rejected", reason: `${request.method} is not a delivery` }
          else if (secret === undefined) report = { _tag: "Rejected", reason: "a delivery before the endpoint exists" }
          else {
            try {
              const event = new Webhook(secret).verify(body, headers) as Record<string, unknown>
              report = { _tag: "Verified", delivery: { body, event, headers } }
            } catch (error) {
              report = { _tag: "Rejected", reason: error instanceof Error ? error.message : String(error) }
            }
          }
          response.statusCode = report._tag === "Verified" ? 200 : 400
          response.end()
          await options.onReport(report)
        })
      })
      server.once("error", (error) =>
        resume(
          Effect.fail(new CliFailure({ message: `cannot listen on ${options.host}:${options.port}: ${error.message}` }))
        )
      )
      server.listen(options.port, options.host, () => resume(Effect.succeed(server)))
    }),
    (server) =>
      Effect.callback<void>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  ).pipe(
    Effect.map((server) => {
      const address = server.address() as AddressInfo
      const host = address.family === "IPv6" ? `[${address.address}]` : address.address
      return `http://${host}:${address.port}`
    })
  )
