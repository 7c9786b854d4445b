/**
 * `npm start`: the API on the embedded defaults (DESIGN §4). jongodb and anvil run as scoped resources, so
 * Ctrl-C or SIGTERM stops the server first and then both of them.
 */
import { NodeRuntime } from "@effect/platform-node"
import { startAnvil, startJongodb } from "@svc/adapters/embedded"
import { Config, Effect, Layer } from "effect"
import { HttpServer } from "effect/http"
import * as Server from "./Server.ts"

const main = Effect.gen(function* () {
  const port = yield* Config.Int("PORT").pipe(Config.withDefault(3000))
  const [mongo, anvil] = yield* Effect.all([startJongodb(), startAnvil()], { concurrency: 2 })
  yield* Effect.logInfo(`embedded jongodb at ${mongo.uri}, anvil at ${anvil.rpcUrl} (chain ${anvil.chainId})`)
  const server = yield* Layer.build(Server.layer({ port }))
  const address = yield* HttpServer.addressFormattedWith((url) => Effect.succeed(url)).pipe(Effect.provide(server))
  yield* Effect.logInfo(`svc API at ${address} (docs at ${address}/docs)`)
  return yield* Effect.never
}).pipe(Effect.scoped)

NodeRuntime.runMain(main)
