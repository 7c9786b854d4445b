/**
 * Keeps an anvil's chain in a file across restarts (DESIGN §4): loaded at start, saved about every second while
 * blocks are being mined (less often as the chain grows, see below), and once more when the scope closes.
 *
 * We save through anvil's `anvil_dumpState` rather than its `--state` flag: anvil writes that file in place, so a
 * `kill -9` in the middle of a write leaves a truncated file that the next start cannot load. Here each save goes to a
 * temporary file that is renamed over the old one, so the file on disk is always a whole state, at most one interval
 * old.
 *
 * A save costs time in proportion to the chain (anvil serialises its whole history), so the pause after each save is
 * at least ten times what it took: saving never takes more than about a tenth of anvil's time, however long the chain.
 * What a longer pause leaves unsaved is sent again at the next start (`ChainRecovery`), as after a `kill -9`.
 */
import { existsSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs"
import { gunzipSync, constants as zlibConstants } from "node:zlib"
import { Clock, Duration, Effect, Schema, type Scope, Semaphore } from "effect"

/** How much of a dump's gzip is read first: `best_block_number` follows the block header and the accounts. */
const dumpPrefixBytes = 64 * 1024

/**
 * The block a dump holds (its `best_block_number`; the dump is gzipped JSON in hex), or undefined when it cannot be
 * read. anvil may answer a new block number before that block's state is in a dump, so the dump itself is asked. The
 * field comes before the blocks, so a prefix of the dump usually holds it: the whole dump, which grows with the chain,
 * is decompressed only when it does not.
 */
const blockOfDump = (dump: string): bigint | undefined => {
  const hex = dump.replace(/^0x/, "")
  try {
    for (const hexLength of [2 * dumpPrefixBytes, hex.length]) {
      // Z_SYNC_FLUSH: a cut-off gzip stream decompresses as far as it goes instead of failing.
      const json = gunzipSync(Buffer.from(hex.slice(0, hexLength), "hex"), {
        finishFlush: zlibConstants.Z_SYNC_FLUSH
      }).toString("utf8")
      // The closing character proves the number was not cut off with the prefix.
      const found = /"best_block_number":\s*"?(0x[0-9a-fA-F]+|\d+)["},]/.exec(json)?.[1]
      if (found !== undefined) return BigInt(found)
      if (hexLength >= hex.length) return undefined
    }
    return undefined
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
 * Loads `file` into the anvil at `rpcUrl` when it exists, then saves the chain to it every `every` (default 1 s), or ten
 * times the last save's duration when that is longer, when a block was mined since the last save, and when the scope closes. Acquire it after anvil started, so its final
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
