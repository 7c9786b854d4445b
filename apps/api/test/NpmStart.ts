/**
 * `npm start` as tests meet it: its entry point as a real process in a process group of its own, with an environment
 * of the test's choosing (none of the svc settings a developer's shell may carry), killed with the test's scope; a
 * start that is refused; a clean stop; and a bounded poll for what a process does a moment later.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { eventually } from "@svc/adapters/test/Eventually"
import { Duration, Effect } from "effect"

/** `npm start`'s entry point. */
export const mainPath = resolve(import.meta.dirname, "..", "src", "main.ts")

/** The settings of svc a developer's shell may carry, which a start under test must not inherit. */
const svcSettings =
  /^(MONGODB_|JWT_|RPC_|RELAYER_|SMTP_|MAIL_FROM|WEBHOOK_|RATE_LIMIT_|METRICS_|LOG_|ANVIL_|CHAIN_|DEPOSITS_|PUBLIC_BASE_URL|SVC_|OTEL_|SETTLEMENT_|TRUST_PROXY|PORT$|HOST$)/

/** The environment of a start: this process's, without svc's settings, with `env`. */
export const startEnv = (env: Record<string, string>): Record<string, string | undefined> => {
  const inherited: Record<string, string | undefined> = { ...process.env }
  for (const name of Object.keys(inherited)) if (svcSettings.test(name)) delete inherited[name]
  return { ...inherited, ...env }
}

/** A port nothing listens on right now (the system's pick, released). */
export const freePort = Effect.callback<number>((resume) => {
  const probe = createServer()
  probe.listen(0, "127.0.0.1", () => {
    const address = probe.address()
    probe.close(() => resume(Effect.succeed(typeof address === "object" && address !== null ? address.port : 0)))
  })
})

/** A temporary directory, removed with the scope. */
export const tempDir = Effect.acquireRelease(
  Effect.sync(() => mkdtempSync(join(tmpdir(), "svc-npm-start-"))),
  (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
)

/** A started process: where it listens and everything it printed so far (stdout and stderr). */
export interface Started {
  readonly child: ChildProcess
  readonly base: string
  readonly output: () => string
}

const killGroup = (child: ChildProcess) => {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL")
  } catch {
    // Already gone.
  }
}

/** `npm start` with `env` on a free port, resolved once it logged that it serves; its group is killed with the scope. */
export const startNpm = (env: Record<string, string>) =>
  Effect.gen(function* () {
    const port = yield* freePort
    return yield* Effect.acquireRelease(
      Effect.callback<Started, Error>((resume) => {
        const child = spawn(process.execPath, [mainPath], {
          env: startEnv({ ...env, PORT: String(port) }),
          stdio: ["ignore", "pipe", "pipe"],
          detached: true
        })
        let output = ""
        // not a wait: a guard that fails a start that never comes
        const timer = setTimeout(() => resume(Effect.fail(new Error(`not serving in time:\n${output}`))), 90_000)
        const onData = (chunk: Buffer) => {
          output += chunk.toString()
          if (output.includes("svc API at ")) {
            clearTimeout(timer)
            resume(Effect.succeed({ child, base: `http://127.0.0.1:${port}`, output: () => output }))
          }
        }
        child.stdout.on("data", onData)
        child.stderr.on("data", onData)
        child.once("exit", (code) => {
          clearTimeout(timer)
          resume(Effect.fail(new Error(`exited with ${code}:\n${output}`)))
        })
      }),
      ({ child }) => Effect.sync(() => killGroup(child))
    )
  })

/** Resolves once `child` has exited. */
export const exited = (child: ChildProcess) =>
  Effect.callback<void>((resume) => {
    if (child.exitCode !== null || child.signalCode !== null) return resume(Effect.void)
    child.once("exit", () => resume(Effect.void))
  })

/** A start that stops by itself: its exit code and everything it printed. Fails at once if it serves instead. */
export const refusedStart = (env: Record<string, string>) =>
  Effect.acquireRelease(
    Effect.sync(() =>
      spawn(process.execPath, [mainPath], {
        env: startEnv({ PORT: "0", ...env }),
        stdio: ["ignore", "pipe", "pipe"],
        detached: true
      })
    ),
    (child) => Effect.sync(() => killGroup(child))
  ).pipe(
    Effect.flatMap((child) =>
      Effect.callback<{ readonly code: number | null; readonly output: string }, Error>((resume) => {
        let output = ""
        const collect = (chunk: Buffer) => {
          output += chunk.toString()
          if (output.includes("svc API at ")) resume(Effect.fail(new Error(`it started instead:\n${output}`)))
        }
        child.stdout.on("data", collect)
        child.stderr.on("data", collect)
        child.once("close", (code) => resume(Effect.succeed({ code, output })))
      })
    ),
    Effect.timeout(Duration.seconds(60)),
    Effect.orDie
  )

/** SIGTERM, then the exit: a graceful stop. */
export const stopGracefully = (started: Started) =>
  Effect.andThen(
    Effect.sync(() => started.child.kill("SIGTERM")),
    exited(started.child)
  )

/** Asks `check` every 100 ms until it answers something (up to `timeout`, 60 s by default): the shared `eventually`. */
export const poll = <A, E, R>(
  what: string,
  check: Effect.Effect<A | undefined, E, R>,
  timeout: Duration.Input = Duration.seconds(60)
) => eventually(check, { what, every: "100 millis", timeout })
