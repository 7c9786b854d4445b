/**
 * The storage contract suites on MongoDB: the test run's server (`testMongoDatabase`), or the replica set
 * `MONGODB_URI` names; each test on a database of its own.
 */
import { Layer } from "effect"
import { testMongoDatabase } from "../../test/TestMongoDatabase.ts"
import { registerStorageContracts } from "../contract/index.ts"
import * as MongoStorage from "./MongoStorage.ts"

registerStorageContracts({
  name: "MongoDB",
  layer: () => Layer.orDie(MongoStorage.ports.pipe(Layer.provide(testMongoDatabase("contract"))))
})
