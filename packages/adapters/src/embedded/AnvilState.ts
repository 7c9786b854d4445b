/**
 * Keeps an anvil's chain in a file across restarts (DESIGN §4): loaded by anvil itself at start (`--load-state`,
 * `loadableState` below), saved about every second while blocks are being mined (less often as the chain grows, see
 * below), and once more when the scope closes.
 *
 * The file is anvil's state as plain JSON, which is what `--load-state` reads. Loading it over JSON-RPC
 * (`anvil_loadState`) is refused past anvil's request-size cap of about 2 MiB, which a chain reached after about a
 * thousand payments (issue 18): so the file is never sent over RPC, and chains of any size load.
 *
 * We save through anvil's `anvil_dumpState` (gzipped JSON, in hex) rather than its `--state` flag: anvil writes that
 * file in place, so a `kill -9` in the middle of a write leaves a truncated file that the next start cannot load. Here
 * each save is decompressed into a temporary file, flushed to disk and renamed over the old one, so the file on disk
 * is always a whole state, at most one interval old.
 *
 * A save costs time in proportion to the chain (anvil serialises its whole history), so the pause after each save is
 * at least ten times what it took: saving never takes more than about a tenth of anvil's time, however long the chain.
 * What a longer pause leaves unsaved is sent again at the next start (`ChainRecovery`), as after a `kill -9`.
 */
import {
  closeSync,
  existsSync,
  fsyncSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  statSync,
  utimesSync,
  writeSync
} from "node:fs"
import { gunzipSync } from "node:zlib"
import { Clock, Duration, Effect, Schema, type Scope, Semaphore } from "effect"
import type { Anvil } from "./Anvil.ts"

/**
 * The block a saved state holds (its `best_block_number`), or undefined when it cannot be read. anvil may answer a
 * new block number before that block's state is in a dump, so the dump itself is asked. Found in the bytes, so a state
 * of many megabytes is not copied into a string each save.
 */
const blockOfState = (json: Buffer): bigint | undefined => {
  const at = json.indexOf('"best_block_number"')
  if (at < 0) return undefined
  const found = /^"best_block_number":\s*"?(0x[0-9a-fA-F]+|\d+)"?/.exec(
    json.subarray(at, at + 100).toString("utf8")
  )?.[1]
  return found === undefined ? undefined : BigInt(found)
}

/** Writes `contents` to `file` whole: a temporary file, flushed to disk, renamed over it (keeping `mtime` if given). */
const writeWhole = (file: string, contents: Buffer, mtime?: Date) => {
  const temporary = `${file}.${process.pid}.tmp`
  const fd = openSync(temporary, "w", 0o600)
  try {
    writeSync(fd, contents)
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
  if (mtime !== undefined) utimesSync(temporary, mtime, mtime)
  renameSync(temporary, file)
}

/** The first bytes of a file, as text. */
const headOf = (file: string, bytes: number) => {
  const fd = openSync(file, "r")
  try {
    const buffer = Buffer.alloc(bytes)
    return buffer.subarray(0, readSync(fd, buffer, 0, bytes, 0)).toString("utf8")
  } finally {
    closeSync(fd)
  }
}

/** The saved chain could not be loaded into anvil. */
export class AnvilStateError extends Schema.TaggedError<AnvilStateError>()("AnvilStateError", {
  file: Schema.String,
  message: Schema.String
}) {}

/**
 * Makes `file` loadable by `anvil --load-state` and answers when it was saved (its `mtime`), or `undefined` when there
 * is none (a first start). A file saved before issue 18 holds the RPC form (gzipped JSON in hex), which anvil's flag
 * refuses: it is converted once, in place and whole, keeping its `mtime` (what `ChainRecovery` resends from). A file
 * that is neither form is refused here, with its name, rather than by anvil.
 */
export const loadableState = (file: string): Effect.Effect<number | undefined, AnvilStateError> =>
  Effect.try({
    try: () => {
      if (!existsSync(file)) return undefined
      const { mtime } = statSync(file)
      const head = headOf(file, 64).trimStart()
      if (/^(0x)?[0-9a-fA-F]{16}/.test(head)) {
        const hex = readFileSync(file, "utf8").trim().replace(/^0x/, "")
        writeWhole(file, gunzipSync(Buffer.from(hex, "hex")), mtime)
      }
      if (!headOf(file, 64).trimStart().startsWith("{")) throw new Error("it is not a saved chain")
      return mtime.getTime()
    },
    catch: (error) =>
      new AnvilStateError({
        file,
        message: `anvil could not load the saved chain: ${error instanceof Error ? error.message : String(error)}`
      })
  })

const rpc = (rpcUrl: string, method: string, params: ReadonlyArray<unknown>) =>
  Effect.tryPromise({
    try: async () => {
      // Bounded: a hung node must not hold the save lock, which a restart (`reload`) waits for.
      const response = await fetch(rpcUrl, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
        signal: AbortSignal.timeout(30_000)
      })
      const body = (await response.json()) as { result?: unknown; error?: { message?: string } }
      if (body.error !== undefined) throw new Error(body.error.message ?? JSON.stringify(body.error))
      return body.result
    },
    catch: (error) => (error instanceof Error ? error : new Error(String(error)))
  })

/** What a persisted chain reports. */
export interface PersistedChain {
  /** When the state anvil loaded at start was saved (epoch ms), or `undefined` when there was none (a first start). */
  readonly savedAt: number | undefined
  /** Saves the chain now (also done every interval and when the scope closes). */
  readonly save: Effect.Effect<void>
  /**
   * Runs `start` (a new anvil at the same URL, after the old one died, which loads the saved chain itself), with
   * saving held off meanwhile so the fresh chain never overwrites the file; answers the new anvil and when the state it
   * loaded was saved.
   */
  readonly reload: <E>(
    start: Effect.Effect<Anvil, E>
  ) => Effect.Effect<{ readonly value: Anvil; readonly savedAt: number | undefined }, E | AnvilStateError>
}

/**
 * Saves the chain of `anvil`, which was started from its state file (`startAnvil({ stateFile })`), back to that file
 * every `every` (default 1 s), or ten times the last save's duration when that is longer, when a block was mined since
 * the last save, and when the scope closes. Acquire it after anvil started, so its final save runs before anvil stops.
 */
export const persistAnvilState = (options: {
  readonly anvil: Anvil
  readonly every?: Duration.Input
}): Effect.Effect<PersistedChain, AnvilStateError, Scope.Scope> =>
  Effect.gen(function* () {
    const { rpcUrl, stateFile: file } = options.anvil
    if (file === undefined) {
      // Saving a chain that was not loaded from the file would overwrite the file with it.
      return yield* Effect.die(new Error("persistAnvilState: the anvil was started without a stateFile"))
    }
    const blockNumber = Effect.map(rpc(rpcUrl, "eth_blockNumber", []), (block) => BigInt(String(block)))
    const blockOrError = blockNumber.pipe(
      Effect.mapError((error) => new AnvilStateError({ file, message: error.message }))
    )
    // The block the file is known to hold: the timer saves only when the chain has moved past it.
    let savedBlock: bigint | undefined = options.anvil.savedAt !== undefined ? yield* blockOrError : undefined
    // The timer and the final save must not write the temporary file at the same time.
    const oneAtATime = Semaphore.makeUnsafe(1)
    const saveIfMined = (force: boolean) =>
      oneAtATime.withPermits(1)(
        Effect.gen(function* () {
          if (!force && (yield* blockNumber) === savedBlock) return
          const dump = String(yield* rpc(rpcUrl, "anvil_dumpState", []))
          const json = yield* Effect.try({
            try: () => {
              const json = gunzipSync(Buffer.from(dump.replace(/^0x/, ""), "hex"))
              writeWhole(file, json)
              return json
            },
            catch: (error) => (error instanceof Error ? error : new Error(String(error)))
          })
          // A block mined while the dump was taken may be missing from it: then the next tick saves again.
          savedBlock = blockOfState(json)
        })
      )
    // A failed save (anvil busy or gone) is retried at the next tick; the last whole file stays in place.
    const save = saveIfMined(true).pipe(
      Effect.catch((error) => Effect.logWarning(`saving the chain to ${file} failed: ${error}`))
    )
    const everyMillis = Duration.toMillis(options.every ?? Duration.seconds(1))
    const tick = Effect.gen(function* () {
      const started = yield* Clock.currentTimeMillis
      yield* saveIfMined(false).pipe(
        Effect.catch((error) => Effect.logWarning(`saving the chain to ${file} failed: ${error}`))
      )
      const took = (yield* Clock.currentTimeMillis) - started
      yield* Effect.sleep(Duration.millis(Math.max(everyMillis, 10 * took)))
    })
    yield* tick.pipe(Effect.forever, Effect.forkScoped)
    yield* Effect.addFinalizer(() => saveIfMined(false).pipe(Effect.ignore))
    const reload = <E>(start: Effect.Effect<Anvil, E>) =>
      oneAtATime.withPermits(1)(
        Effect.gen(function* () {
          const value = yield* start
          savedBlock = yield* blockOrError
          return { value, savedAt: value.savedAt }
        })
      )
    return { savedAt: options.anvil.savedAt, save, reload }
  })
