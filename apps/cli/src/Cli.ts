/**
 * The `svc` command line, on the typed client derived from the HttpApi contract (DESIGN §5b): every operation of the
 * API by resource, payments signed on this machine, tables by default and the API's JSON with `--json`. Expected
 * failures print one line on stderr (the API's message and code) and exit 1; nothing prints a stack trace for them.
 */
import { Console, Effect } from "effect"
import { Command } from "effect/cli"
import { health, login, logout, whoami } from "./commands/Auth.ts"
import { invites } from "./commands/Invites.ts"
import { listen } from "./commands/Listen.ts"
import { members, users } from "./commands/Members.ts"
import { paymentCommands } from "./commands/Payments.ts"
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
    ...paymentCommands,
    invites,
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
