/**
 * Keeps an anvil's chain in a file across restarts (DESIGN §4): loaded at start, saved at least every second while
 * blocks are being mined, and once more when the scope closes.
 *
 * We save through anvil's `anvil_dumpState` rather than its `--state` flag: anvil writes that file in place, so a
 * `kill -9` in the middle of a write leaves a truncated file that the next start cannot load. Here each save goes to a
 * temporary file that is renamed over the old one, so the file on disk is always a whole state, at most one interval
 * old.
 */
import { existsSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs"
import { gunzipSync } from "node:zlib"
import { Duration, Effect, Schedule, Schema, type Scope, Semaphore } from "effect"

/**
 * The block a dump holds (its `best_block_number`; the dump is gzipped JSON in hex), or undefined when it cannot be
 * read. anvil may answer a new block number before that block's state is in a dump, so the dump itself is asked.
 */
const blockOfDump = (dump: string): bigint | undefined => {
  try {
    const json = gunzipSync(Buffer.from(dump.replace(/^0x/, ""), "hex")).toString("utf8")
    const found = /"best_block_number":\s*"?(0x[0-9a-fA-F]+|\d+)/.exec(json)?.[1]
    return found === undefined ? undefined : BigInt(found)
  } catch {
    return undefined
  }
}

/** The saved chain could not be loaded into anvil. */
export class AnvilStateError extends Schema.TaggedError<AnvilStateError>()("AnvilStateError", {
  file: Schema.String,
  message: Schema.String
}) {}

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
  /** When the loaded state was saved (epoch ms), or `undefined` when there was none to load (a first start). */
  readonly savedAt: number | undefined
  /** Saves the chain now (also done every interval and when the scope closes). */
  readonly save: Effect.Effect<void>
  /**
   * Runs `start` (a new anvil at the same URL, after the old one died) and loads the saved chain into it, with saving
   * held off meanwhile so the fresh, empty chain never overwrites the file; answers `start`'s value and when the
   * loaded state was saved.
   */
  readonly reload: <A, E>(
    start: Effect.Effect<A, E>
  ) => Effect.Effect<{ readonly value: A; readonly savedAt: number | undefined }, E | AnvilStateError>
}

/**
 * Loads `file` into the anvil at `rpcUrl` when it exists, then saves the chain to it every `every` (default 1 s) when
 * a block was mined since the last save, and when the scope closes. Acquire it after anvil started, so its final
 * save runs before anvil stops.
 */
export const persistAnvilState = (options: {
  readonly rpcUrl: string
  readonly file: string
  readonly every?: Duration.Input
}): Effect.Effect<PersistedChain, AnvilStateError, Scope.Scope> =>
  Effect.gen(function* () {
    const { rpcUrl, file } = options
    /** Loads the file into anvil when there is one; answers when it was saved. */
    const load = Effect.gen(function* () {
      const savedAt = existsSync(file) ? statSync(file).mtimeMs : undefined
      if (savedAt === undefined) return undefined
      const state = yield* Effect.try({
        try: () => readFileSync(file, "utf8").trim(),
        catch: (error) => new AnvilStateError({ file, message: `cannot read the saved chain: ${String(error)}` })
      })
      yield* rpc(rpcUrl, "anvil_loadState", [state]).pipe(
        Effect.mapError(
          (error) => new AnvilStateError({ file, message: `anvil could not load the saved chain: ${error.message}` })
        )
      )
      return savedAt
    })
    const savedAt = yield* load
    const restored = savedAt !== undefined
    const blockNumber = Effect.map(rpc(rpcUrl, "eth_blockNumber", []), (block) => BigInt(String(block)))
    // The block the file is known to hold: the timer saves only when the chain has moved past it.
    let savedBlock: bigint | undefined = restored ? yield* blockNumber.pipe(Effect.orDie) : undefined
    // The timer and the final save must not write the temporary file at the same time.
    const oneAtATime = Semaphore.makeUnsafe(1)
    const saveIfMined = (force: boolean) =>
      oneAtATime.withPermits(1)(
        Effect.gen(function* () {
          if (!force && (yield* blockNumber) === savedBlock) return
          const state = String(yield* rpc(rpcUrl, "anvil_dumpState", []))
          const temporary = `${file}.${process.pid}.tmp`
          yield* Effect.try({
            try: () => {
              writeFileSync(temporary, state)
              renameSync(temporary, file)
            },
            catch: (error) => (error instanceof Error ? error : new Error(String(error)))
          })
          // A block mined while the dump was taken may be missing from it: then the next tick saves again.
          savedBlock = blockOfDump(state)
        })
      )
    // A failed save (anvil busy or gone) is retried at the next tick; the last whole file stays in place.
    const save = saveIfMined(true).pipe(
      Effect.catch((error) => Effect.logWarning(`saving the chain to ${file} failed: ${error}`))
    )
    yield* saveIfMined(false).pipe(
      Effect.catch((error) => Effect.logWarning(`saving the chain to ${file} failed: ${error}`)),
      Effect.repeat(Schedule.spaced(options.every ?? Duration.seconds(1))),
      Effect.forkScoped
    )
    yield* Effect.addFinalizer(() => saveIfMined(false).pipe(Effect.ignore))
    const reload = <A, E>(start: Effect.Effect<A, E>) =>
      oneAtATime.withPermits(1)(
        Effect.gen(function* () {
          const value = yield* start
          const loadedAt = yield* load
          savedBlock = yield* blockNumber.pipe(
            Effect.mapError((error) => new AnvilStateError({ file, message: error.message }))
          )
          return { value, savedAt: loadedAt }
        })
      )
    return { savedAt, save, reload }
  })
