/**
 * Benchmark: webhook delivery on the embedded default (SQLite file, the dispatcher every API process runs) to a
 * local receiver answering 204, in a child process of its own:
 * - signed deliveries/s with 1 and with 10 endpoints (a burst of events committed to the outbox), and the p50/p99
 *   from an event's commit to its arrival, in the burst and at a steady 200 events/s;
 * - beside it, the ceiling: the same receiver fed by a bare loop of signed `fetch` POSTs (64 in flight);
 * - a receiver down for a while (a shortened schedule: retries every second) gets every event once it is back, none
 *   lost, none delivered twice successfully.
 *
 * Run: `node apps/api/bench/webhooks.bench.ts` (appends to bench/RESULTS.md). Settings: BENCH_EVENTS (burst size,
 * default 3000), BENCH_OUTAGE_SECONDS (default 10).
 */
import { type ChildProcess, spawn } from "node:child_process"
import { createHmac } from "node:crypto"
import { appendFileSync, mkdtempSync, rmSync } from "node:fs"
import { type AddressInfo, createServer as createNetServer } from "node:net"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { type DomainEvent, EventOutbox } from "@svc/domain/event"
import type { CompanyId, EventId, TeamId, WebhookId } from "@svc/domain/Ids"
import { WebhookEndpointRepository, WebhookSecretBox } from "@svc/domain/webhook"
import { Context, Effect, Layer } from "effect"
import * as Server from "../src/Server.ts"
import * as BenchRun from "./BenchRun.ts"

/** `BENCH_SMOKE=1`: the same paths with a small burst and a short outage, written nowhere. */
const smoke = process.env.BENCH_SMOKE === "1"
const burst = Number(process.env.BENCH_EVENTS ?? (smoke ? 60 : 3000))
const outageSeconds = Number(process.env.BENCH_OUTAGE_SECONDS ?? (smoke ? 2 : 10))
const now = () => performance.timeOrigin + performance.now()

interface Stats {
  readonly count: number
  readonly distinct: number
  readonly duplicates: number
  readonly p50: number
  readonly p99: number
  readonly first: number
  readonly last: number
}

const startReceiver = (port: number) =>
  new Promise<ChildProcess>((done) => {
    // A file of its own: a restart loads no more than the receiver.
    const child = spawn(process.execPath, [resolve(import.meta.dirname, "WebhookBenchReceiver.ts"), String(port)], {
      stdio: ["ignore", "pipe", "inherit"]
    })
    child.stdout?.once("data", () => done(child))
  })

const stopReceiver = (child: ChildProcess) =>
  new Promise<void>((done) => {
    if (child.exitCode !== null || child.signalCode !== null) return done()
    child.once("exit", () => done())
    child.kill("SIGKILL")
  })

/** A port nothing listens on now (the receiver comes back on the same one after an outage). */
const freePort = () =>
  new Promise<number>((done) => {
    const probe = createNetServer()
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as AddressInfo
      probe.close(() => done(port))
    })
  })

const stats = async (base: string): Promise<Stats> => (await fetch(`${base}/stats`)).json() as Promise<Stats>
const reset = async (base: string) => void (await fetch(`${base}/reset`, { method: "POST" }))

/** Polls the receiver until it has `count` deliveries (or `timeoutMillis` passed). */
const until = async (base: string, count: number, timeoutMillis = 120_000) => {
  const started = Date.now()
  for (;;) {
    const s = await stats(base)
    if (s.count >= count || Date.now() - started > timeoutMillis) return s
    await new Promise((r) => setTimeout(r, 20))
  }
}

// --- The API side ---------------------------------------------------------------------------------------------------

const team = "te-benchmark001" as TeamId
const secret = `whsec_${Buffer.alloc(32, 9).toString("base64")}`
let sequence = 0
const eventNow = (): DomainEvent => {
  sequence++
  return {
    id: `ev-bench${String(sequence).padStart(8, "0")}` as EventId,
    event_type: "payment.sent",
    created: Math.floor(Date.now() / 1000),
    team_nanoid: team,
    idempotency_key: `00000000-0000-4000-8000-${String(sequence).padStart(12, "0")}`,
    data: { committed_at: now(), amount_cents: 2500, nanoid: `pa-bench${sequence}` }
  }
}

/** A server (and its dispatcher) on a fresh SQLite file, with `endpoints` active endpoints at `url`. */
const serverWith = (file: string, url: string, endpoints: number, options: Partial<Server.ServerOptions> = {}) =>
  Effect.gen(function* () {
    const context = yield* Layer.build(
      Server.layer({ port: 0, storage: { _tag: "sqlite", filename: file }, logRequests: false, ...options })
    )
    const box = Context.get(context, WebhookSecretBox)
    const repository = Context.get(context, WebhookEndpointRepository)
    const sealed = yield* box.seal(secret)
    for (let i = 0; i < endpoints; i++) {
      yield* repository.insert({
        nanoid: `wh-bench${String(i).padStart(7, "0")}` as WebhookId,
        company_nanoid: "co-benchmark001" as CompanyId,
        team_nanoid: team,
        url,
        events: ["payment.sent"],
        state: "active",
        name: `bench ${i}`,
        description: "",
        version: 2,
        secrets: [{ sealed }],
        created_at: new Date().toISOString(),
        updated_at: new Date().toISOString()
      })
    }
    return Context.get(context, EventOutbox)
  })

/** Commits `count` events in transactions of 50, as fast as the outbox takes them. */
const commitBurst = (outbox: EventOutbox["Service"], count: number) =>
  Effect.gen(function* () {
    for (let i = 0; i < count; i += 50) {
      yield* outbox.append(Array.from({ length: Math.min(50, count - i) }, eventNow))
      if (i % 500 === 0) yield* Effect.yieldNow
    }
  })

/** Commits `perSecond` events a second, one per transaction, for `seconds`. */
const commitSteady = (outbox: EventOutbox["Service"], perSecond: number, seconds: number) =>
  Effect.gen(function* () {
    const gap = 1000 / perSecond
    const start = now()
    for (let i = 0; i < perSecond * seconds; i++) {
      const due = start + i * gap
      const wait = due - now()
      if (wait > 0) yield* Effect.sleep(wait)
      yield* outbox.append([eventNow()])
    }
  })

interface Row {
  readonly label: string
  readonly deliveries: number
  readonly perSecond: number
  readonly p50: number
  readonly p99: number
}

const measure = (endpoints: number, base: string, url: string) =>
  Effect.scoped(
    Effect.gen(function* () {
      const dir = mkdtempSync(join(tmpdir(), "svc-webhooks-bench-"))
      yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(dir, { recursive: true, force: true })))
      const outbox = yield* serverWith(join(dir, "svc.db"), url, endpoints)
      yield* Effect.promise(() => reset(base))
      const started = now()
      yield* commitBurst(outbox, burst)
      const b = yield* Effect.promise(() => until(base, burst * endpoints))
      const burstRow: Row = {
        label: `burst of ${burst} events, ${endpoints} endpoint${endpoints === 1 ? "" : "s"}`,
        deliveries: b.count,
        perSecond: b.count / ((b.last - started) / 1000),
        p50: b.p50,
        p99: b.p99
      }
      yield* Effect.promise(() => reset(base))
      const rate = endpoints === 1 ? 200 : 50
      yield* commitSteady(outbox, rate, 5)
      const s = yield* Effect.promise(() => until(base, rate * 5 * endpoints))
      const steadyRow: Row = {
        label: `steady ${rate} events/s for 5 s, ${endpoints} endpoint${endpoints === 1 ? "" : "s"}`,
        deliveries: s.count,
        perSecond: (rate * endpoints * 5) / 5,
        p50: s.p50,
        p99: s.p99
      }
      return [burstRow, steadyRow, b.duplicates + s.duplicates] as const
    })
  )

/** The ceiling: a bare loop of signed fetch POSTs, 64 in flight. */
const ceiling = async (base: string, url: string): Promise<Row> => {
  await reset(base)
  const key = Buffer.from(secret.slice(6), "base64")
  let next = 0
  const started = now()
  const worker = async () => {
    while (next < burst) {
      const i = next++
      const body = JSON.stringify({ object: "event", id: `ev-${i}`, data: { committed_at: now() } })
      const timestamp = Math.floor(Date.now() / 1000)
      const id = `ceiling-${i}`
      const response = await fetch(url, {
        method: "POST",
        body,
        headers: {
          "content-type": "application/json",
          "webhook-id": id,
          "webhook-timestamp": String(timestamp),
          "webhook-signature": `v1,${createHmac("sha256", key).update(`${id}.${timestamp}.${body}`).digest("base64")}`,
          "x-svc-signature": `t=${timestamp},v1=${createHmac("sha256", key).update(`${timestamp}.${body}`).digest("hex")}`
        }
      })
      await response.arrayBuffer()
    }
  }
  await Promise.all(Array.from({ length: 64 }, worker))
  const s = await until(base, burst)
  return {
    label: `bare signed fetch loop, ${burst} POSTs`,
    deliveries: s.count,
    perSecond: s.count / ((s.last - started) / 1000),
    p50: s.p50,
    p99: s.p99
  }
}

/** The receiver down for `outageSeconds` while events are committed; then back on the same port. */
const outage = (port: number) =>
  Effect.scoped(
    Effect.gen(function* () {
      const base = `http://127.0.0.1:${port}`
      const dir = mkdtempSync(join(tmpdir(), "svc-webhooks-bench-"))
      yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(dir, { recursive: true, force: true })))
      const outbox = yield* serverWith(join(dir, "svc.db"), `${base}/hook`, 1, {
        webhookDispatcher: { schedule: { delays: [], thenEvery: 1_000, giveUpAfter: 10 * 60_000 } }
      })
      const events = Math.max(100, outageSeconds * 50)
      // Down: every attempt is refused while events keep coming.
      yield* commitSteady(outbox, events / outageSeconds, outageSeconds)
      const back = yield* Effect.promise(() => startReceiver(port))
      yield* Effect.addFinalizer(() => Effect.promise(() => stopReceiver(back)))
      const s = yield* Effect.promise(() => until(base, events, 60_000))
      // A little longer: a late duplicate would show here.
      yield* Effect.sleep(2_000)
      const after = yield* Effect.promise(() => stats(base))
      return { events, received: after.count, distinct: after.distinct, duplicates: after.duplicates, p99: s.p99 }
    })
  )

const main = Effect.gen(function* () {
  const port = yield* Effect.promise(freePort)
  const receiver = yield* Effect.acquireRelease(
    Effect.promise(() => startReceiver(port)),
    (child) => Effect.promise(() => stopReceiver(child))
  )
  const base = `http://127.0.0.1:${port}`
  const url = `${base}/hook`
  const top = yield* Effect.promise(() => ceiling(base, url))
  const [burst1, steady1, dup1] = yield* measure(1, base, url)
  const [burst10, steady10, dup10] = yield* measure(10, base, url)
  yield* Effect.promise(() => stopReceiver(receiver))
  const down = yield* outage(yield* Effect.promise(freePort))

  const rows = [top, burst1, steady1, burst10, steady10]
  const table = [
    "| run | deliveries | deliveries/s | vs ceiling | p50 commit to arrival (ms) | p99 (ms) |",
    "| --- | ---------: | -----------: | ---------: | -------------------------: | -------: |",
    ...rows.map(
      (r) =>
        `| ${r.label} | ${r.deliveries} | ${r.perSecond.toFixed(0)} | ${r.label.startsWith("steady") ? "(paced)" : `${(r.perSecond / top.perSecond).toFixed(2)}x`} | ${r.p50.toFixed(1)} | ${r.p99.toFixed(1)} |`
    )
  ].join("\n")
  const section = `
## Webhooks: signed delivery on the embedded default (${new Date().toISOString().slice(0, 10)}, ${BenchRun.commit()})

Machine: ${BenchRun.machine()}. One API process (SQLite file, its dispatcher: 4 delivery loops each claiming and sending 32
deliveries at a time, idle poll 50 ms), a receiver answering 204 in a child process, keep-alive connections. "p50/p99" run from the
event's commit to the outbox to its arrival at the receiver (for the ceiling: from the POST's start).

${table}

Duplicate successful deliveries in the runs above: ${dup1 + dup10}.

Receiver down for ${outageSeconds} s while ${down.events} events were committed (retries every second), then back on
the same port: ${down.received} deliveries received for ${down.distinct} distinct deliveries of ${down.events} events,
${down.duplicates} delivered twice; p99 from commit to arrival ${(down.p99 / 1000).toFixed(1)} s (the outage and the receiver's restart).

Command: \`node apps/api/bench/webhooks.bench.ts\`.
`
  process.stdout.write(section)
  if (!smoke) appendFileSync(resolve(import.meta.dirname, "../../../bench/RESULTS.md"), section)
}).pipe(Effect.scoped)

await Effect.runPromise(main)
process.exit(0)
