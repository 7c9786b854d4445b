/**
 * The storage contract suites on SQLite, each test on a database file of its own in a fresh temporary directory.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, Layer } from "effect"
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
