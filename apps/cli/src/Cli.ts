/**
 * The `svc` command line, on the typed client derived from the HttpApi contract. For now it has `svc health`; the
 * other operations come as commands of their own. Output is human-readable by default and the API's JSON with `--json`.
 */
import { makeApiClient } from "@svc/adapters/http"
import { Console, Effect } from "effect"
import { Command, Flag } from "effect/cli"

const url = Flag.String("url").pipe(
  Flag.withDescription("Base URL of the svc API (env SVC_URL)"),
  Flag.withDefault(process.env.SVC_URL ?? "http://127.0.0.1:3000")
)
const json = Flag.Boolean("json").pipe(Flag.withDescription("Print the API's JSON"), Flag.withDefault(false))

/** The root command; its flags are shared by every subcommand. */
export const svc = Command.make("svc").pipe(
  Command.withSharedFlags({ url, json }),
  Command.withDescription("Team payments in USDC: drive the svc API")
)

/** `svc health`: whether the API answers. */
export const health = Command.make(
  "health",
  {},
  Effect.fn("svc.health")(function* () {
    const root = yield* svc
    const response = yield* (yield* makeApiClient({ baseUrl: root.url })).health()
    yield* Console.log(root.json ? JSON.stringify(response) : `${root.url}: ${response.data.status}`)
  })
).pipe(Command.withDescription("Check that the API serves"))

/** Runs `svc` with the given arguments (without the executable and script). */
export const run = svc.pipe(Command.withSubcommands([health]), (command) =>
  Command.runWith(command, { version: "0.0.0" })
)
