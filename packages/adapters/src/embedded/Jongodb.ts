/**
 * The embedded MongoDB-compatible server (jongodb), as a scoped resource.
 */
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { Effect, type Scope } from "effect"
import { type EmbeddedStartError, freePort, pollUntil, retryStart, spawnScoped } from "./ChildProcess.ts"

const binaryPackage = "@jongodb/memory-server-bin-linux-x64-gnu"

/** Where the jongodb binary is: `JONGODB_BIN`, else the pinned npm package. */
export const jongodbBinary = (): string => {
  if (process.env.JONGODB_BIN) return process.env.JONGODB_BIN
  try {
    const manifest = createRequire(import.meta.url).resolve(`${binaryPackage}/package.json`)
    return join(dirname(manifest), "bin", "jongodb")
  } catch {
    return `<${binaryPackage} is not installed for ${process.platform}-${process.arch}; set JONGODB_BIN>`
  }
}

/** A running jongodb: its connection string. */
export interface Jongodb {
  readonly uri: string
  readonly port: number
  /** Completes when the process exits. */
  readonly exited: Effect.Effect<void>
}

/**
 * Starts jongodb as a single-node replica set on a free loopback port (or `port`, e.g. to start it again where it
 * was); stops it when the scope closes.
 */
export const startJongodb = (
  options: { readonly binary?: string; readonly port?: number } = {}
): Effect.Effect<Jongodb, EmbeddedStartError, Scope.Scope> =>
  Effect.gen(function* () {
    const port = options.port ?? (yield* freePort)
    const { exited, ready: uri } = yield* spawnScoped({
      service: "jongodb",
      binary: options.binary ?? jongodbBinary(),
      args: ["--host=127.0.0.1", `--port=${port}`, "--topology-profile=singleNodeReplicaSet", "--replica-set-name=rs0"],
      ready: ({ stdout }) => pollUntil(async () => /JONGODB_URI=(\S+)/.exec(stdout())?.[1])
    })
    return { uri, port, exited }
  }).pipe(retryStart)
