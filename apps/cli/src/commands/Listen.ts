/**
 * `svc listen`: watch a team's webhooks on this machine. Starts a local receiver, registers a temporary endpoint
 * pointing at it (the contract's POST /v2/webhooks, DESIGN §5b), verifies each delivery's Standard Webhooks signature, prints the
 * events (or JSON lines), forwards them to `--forward-to` if asked, and deletes the endpoint on Ctrl-C.
 */
import { hostname } from "node:os"
import { eventTypes } from "@svc/domain/event"
import type { WebhookId } from "@svc/domain/Ids"
import { Effect, Option } from "effect"
import { Command, Flag } from "effect/cli"
import { answer } from "../Api.ts"
import { localDate } from "../Output.ts"
import { type ReceiverReport, startReceiver } from "../Receiver.ts"
import { svc } from "../Root.ts"
import { authenticated } from "../Session.ts"
import { teamId } from "./Ids.ts"
import { parseEvents } from "./Webhooks.ts"

const stderr = (line: string) => Effect.sync(() => process.stderr.write(`${line}\n`))

/** Sends a verified delivery on to `url` as it came (body and signature headers); answers a line to print. */
const forward = async (url: string, body: string, headers: Record<string, string>): Promise<string> => {
  try {
    const response = await fetch(url, { method: "POST", headers, body, redirect: "manual" })
    return `  -> ${url} ${response.status}`
  } catch (error) {
    return `  -> ${url} failed: ${error instanceof Error ? error.message : String(error)}`
  }
}

/** `svc listen`. */
export const listen = Command.make(
  "listen",
  {
    team: Flag.String("team").pipe(Flag.withDescription("The team whose events to watch (te-...)")),
    events: Flag.String("events").pipe(
      Flag.withDescription("Comma-separated event kinds (default: all)"),
      Flag.optional
    ),
    forwardTo: Flag.String("forward-to").pipe(
      Flag.withDescription("Also POST each verified delivery, body and signature headers as received, to this URL"),
      Flag.optional
    ),
    host: Flag.String("host").pipe(
      Flag.withDescription("Address the receiver listens on, as the API reaches it"),
      Flag.withDefault("127.0.0.1")
    ),
    port: Flag.Int("port").pipe(
      Flag.withDescription("Port of the receiver (default: any free port)"),
      Flag.withDefault(0)
    )
  },
  Effect.fn("svc.listen")(function* (input) {
    const flags = yield* svc
    const team = yield* teamId("--team", input.team)
    const events = Option.isSome(input.events) ? yield* parseEvents("--events", input.events.value) : [...eventTypes]
    const { client } = yield* authenticated(flags)
    let secret: string | undefined
    const forwardTo = Option.getOrUndefined(input.forwardTo)
    const onReport = async (report: ReceiverReport) => {
      if (report._tag === "Rejected") {
        process.stderr.write(`rejected a delivery: ${report.reason}\n`)
        return
      }
      const { body, event, headers } = report.delivery
      if (flags.json) process.stdout.write(`${body.replace(/\n/g, "")}\n`)
      else {
        const created =
          typeof event.created === "string" || typeof event.created === "number" ? event.created : undefined
        process.stdout.write(`${localDate(created)}  ${String(event.event_type)}  ${String(event.id)}\n`)
      }
      if (forwardTo !== undefined) process.stderr.write(`${await forward(forwardTo, body, headers)}\n`)
    }
    const base = yield* startReceiver({ host: input.host, port: input.port, secret: () => secret, onReport })
    const created = yield* answer(
      flags.url,
      client.webhooks.create({
        payload: {
          team_nanoid: team,
          url: `${base}/webhooks`,
          events,
          // The API caps names at 100 characters; host names can be long.
          name: `svc listen on ${hostname()}`.slice(0, 100),
          description: "Temporary endpoint of `svc listen`, deleted when it stops",
          version: 2
        },
        responseMode: "decoded-and-response"
      })
    )
    const webhook = created.value.data.webhook_nanoid as WebhookId
    secret = created.value.data.secret
    // Deleted however the command ends: Ctrl-C interrupts it and runs this.
    yield* Effect.addFinalizer(() =>
      answer(
        flags.url,
        client.webhooks.delete({ params: { webhook_nanoid: webhook }, responseMode: "decoded-and-response" })
      ).pipe(
        Effect.andThen(stderr(`Deleted the temporary endpoint ${webhook}`)),
        Effect.catch((failure) => stderr(`could not delete the endpoint ${webhook}: ${failure.message}`))
      )
    )
    yield* stderr(
      `Listening for ${events.length === eventTypes.length ? "all events" : events.join(", ")} of ${team} at ${base}/webhooks ` +
        `(endpoint ${webhook})${forwardTo === undefined ? "" : `, forwarding to ${forwardTo}`}. Ctrl-C to stop.`
    )
    return yield* Effect.never
  }, Effect.scoped)
).pipe(
  Command.withDescription(
    "Watch a team's webhooks here: a temporary endpoint points at a local receiver that verifies each delivery's " +
      "signature, prints it (JSON lines with --json) and forwards it with --forward-to; removed on Ctrl-C"
  )
)
