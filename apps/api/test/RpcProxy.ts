/**
 * Test support: an HTTP JSON-RPC proxy in front of `target` that passes every call through, and does what a fault does
 * to the first `eth_sendRawTransaction` it forwards (the transaction always reaches the node):
 * - `swallow`: that call is never answered, as a connection lost after the request was written;
 * - `down`: that call is answered, and from then on every call meets a closed connection (the node went away right
 *   after it took the transaction), until `up()`.
 */
import { createServer as createHttpServer } from "node:http"
import { Effect } from "effect"

/** A running proxy: its URL, and `up()` to let calls through again after `down`. */
export interface RpcProxy {
  readonly url: string
  readonly up: () => void
  /** How many transactions it forwarded. */
  readonly sent: () => number
}

/** Starts the proxy on a free loopback port; it closes with the scope. */
export const startRpcProxy = (target: string, afterSend: "swallow" | "down") =>
  Effect.map(
    Effect.acquireRelease(
      Effect.promise(
        () =>
          new Promise<RpcProxy & { readonly close: () => void }>((resolve) => {
            let down = false
            let sent = 0
            const server = createHttpServer(async (request, response) => {
              if (down) return request.socket.destroy()
              const chunks: Array<Buffer> = []
              for await (const chunk of request) chunks.push(chunk as Buffer)
              const body = Buffer.concat(chunks).toString("utf8")
              const answer = await fetch(target, {
                method: "POST",
                headers: { "content-type": "application/json" },
                body
              }).then((r) => r.text())
              const sending = body.includes("eth_sendRawTransaction")
              if (sending) sent++
              if (sending && sent === 1 && afterSend === "swallow") return
              if (down) return request.socket.destroy()
              response.writeHead(200, { "content-type": "application/json" }).end(answer)
              if (sending && sent === 1 && afterSend === "down") down = true
            })
            server.listen(0, "127.0.0.1", () => {
              const address = server.address()
              const port = typeof address === "object" && address !== null ? address.port : 0
              resolve({
                url: `http://127.0.0.1:${port}`,
                up: () => {
                  down = false
                },
                sent: () => sent,
                close: () => {
                  server.closeAllConnections()
                  server.close()
                }
              })
            })
          })
      ),
      (proxy) => Effect.sync(proxy.close)
    ),
    ({ url, up, sent }): RpcProxy => ({ url, up, sent })
  )
