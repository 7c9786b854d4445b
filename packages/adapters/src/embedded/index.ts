/**
 * Embedded infrastructure for `npm start` and the test suite: jongodb and anvil as scoped Effect resources, and the
 * `MongoDatabase` that stands in for a replica set on jongodb.
 */
export { type Anvil, anvilBinary, embeddedChainId, startAnvil } from "./Anvil.ts"
export { AnvilStateError, loadableState, type PersistedChain, persistAnvilState } from "./AnvilState.ts"
export {
  type AnvilSupervision,
  type RestartableAnvil,
  type RestartBackoff,
  restartDelayMillis,
  startRestartableAnvil,
  superviseAnvil
} from "./AnvilSupervisor.ts"
export { EmbeddedStartError, freePort, portFree } from "./ChildProcess.ts"
export { type Jongodb, jongodbBinary, startJongodb } from "./Jongodb.ts"
export * as JongodbDatabase from "./JongodbDatabase.ts"
