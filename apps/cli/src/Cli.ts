/**
 * The `svc` command line, on the typed client derived from the HttpApi contract (DESIGN §5b): every operation of the
 * API by resource, payments signed on this machine, tables by default and the API's JSON with `--json`. Expected
 * failures print one line on stderr (the API's message and code) and exit 1; nothing prints a stack trace for them.
 */
// The modules alone, not the package index: a command line starts on every call.
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { Console, Effect } from "effect"
import { CliError, Command } from "effect/cli"
import { health, login, logout, whoami } from "./commands/Auth.ts"
import { deposits } from "./commands/Deposits.ts"
import { invites } from "./commands/Invites.ts"
import { invoices } from "./commands/Invoices.ts"
import { listen } from "./commands/Listen.ts"
import { me } from "./commands/Me.ts"
import { members, users } from "./commands/Members.ts"
import { paymentCommands } from "./commands/Payments.ts"
import { cashRequirements, schedules } from "./commands/Schedules.ts"
import { teams } from "./commands/Teams.ts"
import { webhooks } from "./commands/Webhooks.ts"
import { describeFailure } from "./Failure.ts"
import { svc } from "./Root.ts"

export { svc } from "./Root.ts"

/** The whole command tree. */
export const command = svc.pipe(
  Command.withSubcommands([
    login,
    logout,
    whoami,
    teams,
    users,
    members,
    me,
    ...paymentCommands,
    schedules,
    cashRequirements,
    deposits,
    invites,
    invoices,
    webhooks,
    listen,
    health
  ])
)

/**
 * Runs `svc` with the given arguments (without the executable and script). An expected failure is printed on stderr
 * and sets exit code 1; argument errors are rendered by `effect/cli` with the command's help.
 */
export const run = (args: ReadonlyArray<string>) =>
  Command.runWith(command, { version: "0.0.0" })(args).pipe(
    Effect.catchTag("CliFailure", (failure) =>
      Effect.andThen(
        Console.error(describeFailure(failure)),
        Effect.sync(() => {
          process.exitCode = 1
        })
      )
    )
  )

/** Runs `svc` as a process: exit code 0 only on success; Ctrl-C interrupts the command (and runs its finalizers). */
export const main = (args: ReadonlyArray<string>) =>
  run(args).pipe(
    // effect/cli has already shown an argument error with the command's help: exit 1 without a second report.
    Effect.catchIf(CliError.isCliError, (error) =>
      Effect.sync(() => {
        if (error._tag !== "ShowHelp" || error.errors.length > 0) process.exitCode = 1
      })
    ),
    Effect.provide(NodeServices.layer),
    NodeRuntime.runMain
  )
