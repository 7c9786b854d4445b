/**
 * The storage contract suites on MongoDB: jongodb in the test run, or the server `MONGODB_URI` names; each test on a
 * database of its own.
 */
import { randomUUID } from "node:crypto"
import { Layer } from "effect"
import { inject } from "vitest"
import { registerStorageContracts } from "../contract/index.ts"
import * as MongoStorage from "./MongoStorage.ts"

registerStorageContracts({
  name: "MongoDB",
  layer: () =>
    Layer.orDie(
      MongoStorage.layer({ uri: inject("mongoUri"), database: `contract_${randomUUID().replaceAll("-", "")}` })
    )
})
