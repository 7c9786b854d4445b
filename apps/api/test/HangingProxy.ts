/**
 * Test and bench support: a TCP proxy in front of `target` that forwards until told to hang; then it accepts
 * connections and never answers (and drops the ones it was forwarding), as a wedged node or load balancer does.
 * `forward` makes it pass traffic again.
 */
import { connect, createServer, type Socket } from "node:net"
import { Effect } from "effect"

/** A running proxy: its URL and its switches. */
export interface HangingProxy {
  readonly url: string
  readonly hang: () => void
  readonly forward: () => void
}

/** Starts the proxy on a free loopback port; it closes with the scope. */
export const startHangingProxy = (target: string) =>
  Effect.map(
    Effect.acquireRelease(
      Effect.promise(
        () =>
          new Promise<HangingProxy & { readonly close: () => void }>((resolve) => {
            const upstream = new URL(target)
            const open = new Set<Socket>()
            let hanging = false
            const server = createServer((client) => {
              open.add(client)
              client.on("error", () => undefined)
              client.on("close", () => open.delete(client))
              if (hanging) return
              const node = connect(Number(upstream.port), upstream.hostname)
              node.on("error", () => client.destroy())
              client.on("close", () => node.destroy())
              client.pipe(node).pipe(client)
            })
            const dropAll = () => {
              for (const socket of open) socket.destroy()
            }
            server.listen(0, "127.0.0.1", () => {
              const address = server.address()
              const port = typeof address === "object" && address !== null ? address.port : 0
              resolve({
                url: `http://127.0.0.1:${port}`,
                hang: () => {
                  hanging = true
                  dropAll()
                },
                forward: () => {
                  hanging = false
                  dropAll()
                },
                close: () => {
                  dropAll()
                  server.close()
                }
              })
            })
          })
      ),
      (proxy) => Effect.sync(proxy.close)
    ),
    ({ url, hang, forward }): HangingProxy => ({ url, hang, forward })
  )
