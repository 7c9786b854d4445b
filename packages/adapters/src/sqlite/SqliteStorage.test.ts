/**
 * The storage contract suites on SQLite, each test on a database file of its own in a fresh temporary directory.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { NonceStore } from "@svc/domain/auth"
import { Effect, Layer } from "effect"
import { wallet } from "../contract/Fixtures.ts"
import { registerStorageContracts } from "../contract/index.ts"
import * as SqliteStorage from "./SqliteStorage.ts"

/** Every port on a new database file, removed with its directory when the layer's scope closes. */
export const sqliteFileStorage = () =>
  Layer.unwrap(
    Effect.map(
      Effect.acquireRelease(
        Effect.sync(() => mkdtempSync(join(tmpdir(), "svc-sqlite-"))),
        (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
      ),
      (dir) => SqliteStorage.layer({ filename: join(dir, "svc.db") })
    )
  ).pipe(Layer.orDie)

registerStorageContracts({ name: "SQLite", layer: sqliteFileStorage })

describe("SQLite nonce store", () => {
  it.live("challenges nobody answered are deleted an hour after they expired, as new ones are issued", () =>
    Effect.gen(function* () {
      const nonces = yield* NonceStore
      const now = Date.now()
      const address = wallet(9)
      yield* nonces.issue({ nonce: "abandoned", wallet: address, expiresAt: now - 2 * 60 * 60 * 1000, messageHash: "" })
      yield* nonces.issue({ nonce: "recent", wallet: address, expiresAt: now - 60 * 1000, messageHash: "" })
      yield* nonces.issue({ nonce: "fresh", wallet: address, expiresAt: now + 300_000, messageHash: "" })
      // Gone (never issued, as far as anyone can tell), while the recently expired one still says it expired.
      assert.strictEqual((yield* Effect.flip(nonces.consume("abandoned", address, now)))._tag, "NonceNotFound")
      assert.strictEqual((yield* Effect.flip(nonces.consume("recent", address, now)))._tag, "NonceExpired")
    }).pipe(Effect.provide(sqliteFileStorage()))
  )
})
