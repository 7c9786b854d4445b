/**
 * A child process as a scoped resource: spawned on acquire, ready when a check passes, stopped when the scope closes.
 *
 * Shared by the embedded MongoDB-compatible server and the embedded EVM node.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { existsSync } from "node:fs"
import { createServer } from "node:net"
import { Effect, Schema, type Scope } from "effect"

/** An embedded service could not be started: its binary is missing, it exited, or it never became ready. */
export class EmbeddedStartError extends Schema.TaggedError<EmbeddedStartError>()("EmbeddedStartError", {
  service: Schema.String,
  reason: Schema.Literals(["binary-missing", "exited", "not-ready"]),
  message: Schema.String
}) {}

/**
 * Retries a start whose service exited before it was ready: the free port it was given may have been taken by
 * another process between our check and its bind.
 */
export const retryStart = <A, R>(start: Effect.Effect<A, EmbeddedStartError, R>) =>
  Effect.retry(start, { times: 2, while: (error) => error.reason === "exited" })

/** Asks the kernel for a free TCP port on loopback. */
export const freePort: Effect.Effect<number> = Effect.callback<number>((resume) => {
  const server = createServer()
  server.unref()
  server.listen(0, "127.0.0.1", () => {
    const address = server.address()
    const port = typeof address === "object" && address !== null ? address.port : 0
    server.close(() => resume(Effect.succeed(port)))
  })
})

/**
 * Whether `port` on loopback can be listened on, asked again every 100 ms for up to `waitMillis`: an anvil of a
 * previous start may still be exiting (its guard stops it once its parent is gone), and frees the port in a moment.
 */
export const portFree = (port: number, waitMillis = 3_000): Effect.Effect<boolean> => {
  const attempt = Effect.callback<boolean>((resume) => {
    const server = createServer()
    server.unref()
    server.once("error", () => resume(Effect.succeed(false)))
    server.listen(port, "127.0.0.1", () => server.close(() => resume(Effect.succeed(true))))
  })
  return Effect.gen(function* () {
    for (let waited = 0; ; waited += 100) {
      if (yield* attempt) return true
      if (waited >= waitMillis) return false
      yield* Effect.sleep(100)
    }
  })
}

// The service runs under a small shell guard that holds our end of a pipe: when the pipe closes, because the
// scope closed or because this process died in any way (even SIGKILL), the guard stops the service and waits for it.
// Finalizers alone would leave orphans behind a crashed or killed parent.
const guard = [
  "exec 3<&0",
  '"$0" "$@" <&- 3<&- & service=$!',
  "trap 'kill -TERM $service 2>/dev/null' TERM INT",
  "(read -r _ <&3; kill -TERM $service 2>/dev/null) & watcher=$!",
  "wait $service; code=$?",
  // Waited for, so the watcher is not left a zombie under an init that does not reap; KILL, since a TERM ignored by our
  // parent is ignored by the watcher too, and the wait would then never end.
  "kill -KILL $watcher 2>/dev/null; wait $watcher 2>/dev/null",
  "exit $code"
].join("\n")

/** What `spawnScoped` needs to know about one service. */
export interface SpawnOptions<A> {
  readonly service: string
  readonly binary: string
  readonly args: ReadonlyArray<string>
  /** Resolves once the process is ready, from what it printed so far and its port. */
  readonly ready: (output: { readonly stdout: () => string }) => Effect.Effect<A, EmbeddedStartError>
  readonly readyTimeoutMs?: number
}

const stop = (child: ChildProcess) =>
  Effect.callback<void>((resume) => {
    if (child.exitCode !== null || child.signalCode !== null) return resume(Effect.void)
    const kill = setTimeout(() => child.kill("SIGKILL"), 3_000)
    child.once("exit", () => {
      clearTimeout(kill)
      resume(Effect.void)
    })
    child.stdin?.end()
  })

/** A started service: what `ready` answered, and its end. */
export interface Spawned<A> {
  readonly ready: A
  /** Completes when the process exits, for whatever reason (a supervisor tells a crash from a stop by its scope). */
  readonly exited: Effect.Effect<void>
}

/** Spawns `binary`, waits for `ready`, and stops the process (SIGTERM, then SIGKILL after 3 s) when the scope closes. */
export const spawnScoped = <A>(options: SpawnOptions<A>): Effect.Effect<Spawned<A>, EmbeddedStartError, Scope.Scope> =>
  Effect.gen(function* () {
    if (!existsSync(options.binary)) {
      return yield* new EmbeddedStartError({
        service: options.service,
        reason: "binary-missing",
        message: `${options.service}: binary not found at ${options.binary}; run the install (npm test or npm start) again`
      })
    }
    const child = yield* Effect.acquireRelease(
      Effect.sync(() => {
        const child = spawn("/bin/sh", ["-c", guard, options.binary, ...options.args], {
          stdio: ["pipe", "pipe", "pipe"]
        })
        child.stdin.on("error", () => undefined)
        return child
      }),
      stop
    )
    let stdout = ""
    let stderr = ""
    child.stdout?.on("data", (chunk: Buffer) => {
      if (stdout.length < 65_536) stdout += chunk.toString("utf8")
    })
    child.stderr?.on("data", (chunk: Buffer) => {
      if (stderr.length < 65_536) stderr += chunk.toString("utf8")
    })
    const exited = Effect.callback<never, EmbeddedStartError>((resume) => {
      const fail = (detail: string) =>
        resume(
          Effect.fail(
            new EmbeddedStartError({
              service: options.service,
              reason: "exited",
              message: `${options.service} stopped before it was ready (${detail}): ${stderr.trim().slice(-2_000)}`
            })
          )
        )
      if (child.exitCode !== null) return fail(`exit code ${child.exitCode}`)
      child.once("error", (error) => fail(error.message))
      child.once("exit", (code, signal) => fail(signal ? `signal ${signal}` : `exit code ${code}`))
    })
    const ended = Effect.callback<void>((resume) => {
      if (child.exitCode !== null || child.signalCode !== null) return resume(Effect.void)
      child.once("exit", () => resume(Effect.void))
    })
    const ready = yield* Effect.raceFirst(options.ready({ stdout: () => stdout }), exited).pipe(
      Effect.timeoutOrElse({
        duration: options.readyTimeoutMs ?? 30_000,
        orElse: () =>
          Effect.fail(
            new EmbeddedStartError({
              service: options.service,
              reason: "not-ready",
              message: `${options.service} was not ready in time`
            })
          )
      })
    )
    return { ready, exited: ended }
  })

/** Polls `attempt` every `intervalMs` until it returns a value. */
export const pollUntil = <A>(attempt: () => Promise<A | undefined>, intervalMs = 20): Effect.Effect<A> =>
  Effect.gen(function* () {
    while (true) {
      const value = yield* Effect.promise(() => attempt().catch(() => undefined))
      if (value !== undefined) return value
      yield* Effect.sleep(intervalMs)
    }
  })
