#!/usr/bin/env node
import { NodeRuntime, NodeServices } from "@effect/platform-node"
import { Effect } from "effect"
import { CliError } from "effect/cli"
import { run } from "./Cli.ts"

// effect/cli has already shown an argument error with the command's help: exit 1 without a second report.
run(process.argv.slice(2)).pipe(
  Effect.catchIf(CliError.isCliError, (error) =>
    Effect.sync(() => {
      if (error._tag !== "ShowHelp" || error.errors.length > 0) process.exitCode = 1
    })
  ),
  Effect.provide(NodeServices.layer),
  NodeRuntime.runMain
)
