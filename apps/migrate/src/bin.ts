#!/usr/bin/env node
import { NodeRuntime, NodeServices } from "@effect/platform-node"
import { Console, Effect } from "effect"
import { run } from "./Cli.ts"

const reported = ["IdFileRejected", "SqliteOpenFailed", "SqliteSchemaTooNew", "MongoUnreachable"]

run(process.argv.slice(2)).pipe(
  // The tool's own failures are one clear line and exit code 1, not a stack trace.
  Effect.catchIf(
    (error): error is typeof error & { readonly message: string } =>
      reported.includes((error as { _tag?: string })._tag ?? ""),
    (error) =>
      Effect.andThen(
        Console.error(`migrate: ${error.message}`),
        Effect.sync(() => {
          process.exitCode = 1
        })
      )
  ),
  Effect.provide(NodeServices.layer),
  NodeRuntime.runMain
)
