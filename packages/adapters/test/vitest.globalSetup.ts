/**
 * One jongodb and one anvil for the whole test run. Tests isolate by database name, and on anvil by deploying
 * their own contracts with fresh keys (docs/decisions/0019).
 *
 * Tests read the addresses with `inject("mongoUri")` / `inject("rpcUrl")` from vitest.
 */
import { Effect, Exit, Scope } from "effect"
import type { TestProject } from "vitest/node"
import { startAnvil } from "../src/embedded/Anvil.ts"
import { startJongodb } from "../src/embedded/Jongodb.ts"

declare module "vitest" {
  export interface ProvidedContext {
    readonly mongoUri: string
    readonly rpcUrl: string
  }
}

export default async function setup(project: TestProject) {
  const scope = await Effect.runPromise(Scope.make())
  // `MONGODB_URI` runs the same suite against a real MongoDB replica set instead of jongodb.
  const external = process.env.MONGODB_URI
  const [mongoUri, anvil] = await Effect.runPromise(
    Effect.all(
      [
        external === undefined ? Effect.map(startJongodb(), (mongo) => mongo.uri) : Effect.succeed(external),
        startAnvil()
      ],
      { concurrency: 2 }
    ).pipe(Scope.provide(scope))
  )
  project.provide("mongoUri", mongoUri)
  project.provide("rpcUrl", anvil.rpcUrl)
  return () => Effect.runPromise(Scope.close(scope, Exit.void))
}
