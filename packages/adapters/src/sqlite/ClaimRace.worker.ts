/**
 * A second process, as a worker thread: opens the database file the test names and claims each salt it is given,
 * posting back the salts it won. It runs on plain Node (type stripping), beside the test that starts it.
 */
import { parentPort, workerData } from "node:worker_threads"
import { IssuedRequestStore } from "@svc/domain/eip712"
import { Effect } from "effect"
import * as SqliteStorage from "./SqliteStorage.ts"

const { filename, salts } = workerData as { readonly filename: string; readonly salts: ReadonlyArray<string> }

const won = await Effect.runPromise(
  Effect.gen(function* () {
    const store = yield* IssuedRequestStore
    const mine: Array<string> = []
    for (const salt of salts) {
      const claim = yield* Effect.exit(
        store.claim(salt, { now: Date.now(), until: Date.now() + 20_000, signature: "0x" })
      )
      if (claim._tag === "Success") mine.push(salt)
    }
    return mine
  }).pipe(Effect.provide(SqliteStorage.layer({ filename })), Effect.scoped)
)
parentPort?.postMessage(won)
