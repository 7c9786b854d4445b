/**
 * The webhook benchmark's receiver (`node WebhookBenchReceiver.ts <port>`): answers 204 to every POST and keeps, per
 * delivery, the time from the event's commit (`data.committed_at`, epoch ms) to its arrival; GET /stats answers
 * what it got, POST /reset forgets it. Prints `ready` once it listens.
 */
import { createServer } from "node:http"

const now = () => performance.timeOrigin + performance.now()

/** Serves on `port`. */
const receive = (port: number) => {
  let latencies: Array<number> = []
  let successes = new Map<string, number>()
  let first = 0
  let last = 0
  createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      if (req.method === "GET") {
        const sorted = [...latencies].sort((a, b) => a - b)
        const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0
        const duplicates = [...successes.values()].filter((n) => n > 1).length
        return res.end(
          JSON.stringify({
            count: latencies.length,
            distinct: successes.size,
            duplicates,
            p50: at(0.5),
            p99: at(0.99),
            first,
            last
          })
        )
      }
      if (req.url === "/reset") {
        latencies = []
        successes = new Map()
        first = 0
        return res.writeHead(204).end()
      }
      const at = now()
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8"))
      const committed = Number(body.data?.committed_at ?? at)
      latencies.push(at - committed)
      const key = String(req.headers["webhook-id"])
      successes.set(key, (successes.get(key) ?? 0) + 1)
      if (first === 0) first = at
      last = at
      res.writeHead(204).end()
    })
  }).listen(port, "127.0.0.1", () => process.stdout.write("ready\n")).keepAliveTimeout = 60_000
}

receive(Number(process.argv[2]))
