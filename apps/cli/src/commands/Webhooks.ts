/**
 * `svc webhooks ...`: endpoint management, the delivery log and replay of DESIGN §5b, all on the typed client
 * (WebhooksApi), so bodies and paths are the contract's.
 */
import { type EventType, eventTypes } from "@svc/domain/event"
import type { DeliveryView, WebhookEndpoint } from "@svc/domain/webhook"
import { Effect, Option } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import { answer } from "../Api.ts"
import { badArgument, type CliFailure } from "../Failure.ts"
import { excerpt, fields, localDate, show, table } from "../Output.ts"
import { svc } from "../Root.ts"
import { authenticated } from "../Session.ts"
import { deliveryId, teamId, webhookId } from "./Ids.ts"

const webhookArgument = Argument.String("webhook").pipe(Argument.withDescription("The endpoint's nanoid (wh-...)"))

/** A comma-separated list of event kinds, each checked against the catalog (SPEC §6). */
export const parseEvents = (name: string, text: string): Effect.Effect<Array<EventType>, CliFailure> => {
  const kinds = text
    .split(",")
    .map((kind) => kind.trim())
    .filter((kind) => kind !== "")
  const unknown = kinds.filter((kind) => !(eventTypes as ReadonlyArray<string>).includes(kind))
  if (kinds.length === 0) return Effect.fail(badArgument(name, "no event kind given"))
  if (unknown.length > 0) {
    return Effect.fail(badArgument(name, `unknown event kind ${unknown.map((k) => `"${k}"`).join(", ")} (see SPEC §6)`))
  }
  return Effect.succeed(kinds as Array<EventType>)
}

/** An endpoint as lines (secrets are never part of it). */
const endpointFields = (data: WebhookEndpoint, extra: ReadonlyArray<readonly [string, string]> = []) =>
  fields([
    ["Webhook", data.webhook_nanoid],
    ["Name", data.name],
    ["URL", data.url],
    ["Events", data.events.join(", ")],
    ["Active", String(data.is_active)],
    ["Version", String(data.version)],
    ["Team", data.team_nanoid],
    ["Created", localDate(data.created_at)],
    ...extra
  ])

const deliveryRow = (delivery: DeliveryView) => {
  const last = delivery.attempts.at(-1)
  return {
    delivery,
    last: last === undefined ? "" : last.status_code === null ? (last.error ?? "no answer") : String(last.status_code),
    body: last?.response_body == null ? "" : excerpt(last.response_body, { max: 40, cut: last.response_body_truncated })
  }
}

const create = Command.make(
  "create",
  {
    team: Flag.String("team").pipe(Flag.withDescription("The team's nanoid (te-...)")),
    url: Flag.String("endpoint").pipe(Flag.withDescription("The URL deliveries go to (https in production)")),
    events: Flag.String("events").pipe(
      Flag.withDescription("Comma-separated event kinds, e.g. payment.sent,invite.accepted")
    ),
    name: Flag.String("name").pipe(Flag.withDescription("A name for the endpoint")),
    description: Flag.String("description").pipe(Flag.withDescription("What it is for"), Flag.withDefault("")),
    version: Flag.Int("version").pipe(Flag.withDescription("Payload major version, 1 to 10 (default 2)"), Flag.optional)
  },
  Effect.fn("svc.webhooks.create")(function* (input) {
    const flags = yield* svc
    const team = yield* teamId("--team", input.team)
    const events = yield* parseEvents("--events", input.events)
    const { client } = yield* authenticated(flags)
    const result = yield* answer(
      flags.url,
      client.webhooks.create({
        payload: {
          team_nanoid: team,
          url: input.url,
          events,
          name: input.name,
          description: input.description,
          version: Option.getOrElse(input.version, () => 2)
        },
        responseMode: "decoded-and-response"
      })
    )
    yield* show(flags.json, result, ({ data }) => endpointFields(data, [["Secret", `${data.secret} (shown only now)`]]))
  })
).pipe(Command.withDescription("Register a webhook endpoint for a team; its signing secret is shown only now"))

const list = Command.make(
  "list",
  { team: Flag.String("team").pipe(Flag.withDescription("The team's nanoid (te-...)")) },
  Effect.fn("svc.webhooks.list")(function* (input) {
    const flags = yield* svc
    const team = yield* teamId("--team", input.team)
    const { client } = yield* authenticated(flags)
    const result = yield* answer(
      flags.url,
      client.webhooks.list({ query: { team_nanoid: team }, responseMode: "decoded-and-response" })
    )
    yield* show(flags.json, result, ({ data }) =>
      table(
        data.items,
        [
          { header: "WEBHOOK", cell: (w) => w.webhook_nanoid },
          { header: "NAME", cell: (w) => w.name },
          { header: "URL", cell: (w) => w.url },
          { header: "EVENTS", cell: (w) => String(w.events.length) },
          { header: "ACTIVE", cell: (w) => String(w.is_active) }
        ],
        "No webhook endpoints."
      )
    )
  })
).pipe(Command.withDescription("List a team's webhook endpoints"))

const get = Command.make(
  "get",
  { webhook: webhookArgument },
  Effect.fn("svc.webhooks.get")(function* (input) {
    const flags = yield* svc
    const id = yield* webhookId("webhook", input.webhook)
    const { client } = yield* authenticated(flags)
    const result = yield* answer(
      flags.url,
      client.webhooks.get({ params: { webhook_nanoid: id }, responseMode: "decoded-and-response" })
    )
    yield* show(flags.json, result, ({ data }) => endpointFields(data))
  })
).pipe(Command.withDescription("Show a webhook endpoint"))

const update = Command.make(
  "update",
  {
    webhook: webhookArgument,
    url: Flag.String("endpoint").pipe(Flag.withDescription("New delivery URL"), Flag.optional),
    events: Flag.String("events").pipe(Flag.withDescription("New comma-separated event kinds"), Flag.optional),
    name: Flag.String("name").pipe(Flag.withDescription("New name"), Flag.optional),
    description: Flag.String("description").pipe(Flag.withDescription("New description"), Flag.optional),
    active: Flag.Literals("active", ["true", "false"]).pipe(Flag.withDescription("Enable or disable"), Flag.optional),
    version: Flag.Int("version").pipe(Flag.withDescription("Payload major version, 1 to 10"), Flag.optional)
  },
  Effect.fn("svc.webhooks.update")(function* (input) {
    const flags = yield* svc
    const id = yield* webhookId("webhook", input.webhook)
    const body = {
      ...(Option.isSome(input.url) ? { url: input.url.value } : {}),
      ...(Option.isSome(input.events) ? { events: yield* parseEvents("--events", input.events.value) } : {}),
      ...(Option.isSome(input.name) ? { name: input.name.value } : {}),
      ...(Option.isSome(input.description) ? { description: input.description.value } : {}),
      ...(Option.isSome(input.active) ? { is_active: input.active.value === "true" } : {}),
      ...(Option.isSome(input.version) ? { version: input.version.value } : {})
    }
    if (Object.keys(body).length === 0) return yield* badArgument("flags", "nothing to change")
    const { client } = yield* authenticated(flags)
    const result = yield* answer(
      flags.url,
      client.webhooks.update({ params: { webhook_nanoid: id }, payload: body, responseMode: "decoded-and-response" })
    )
    yield* show(flags.json, result, ({ data }) => endpointFields(data))
  })
).pipe(Command.withDescription("Change a webhook endpoint's URL, events, name, description, state or version"))

const remove = Command.make(
  "delete",
  { webhook: webhookArgument },
  Effect.fn("svc.webhooks.delete")(function* (input) {
    const flags = yield* svc
    const id = yield* webhookId("webhook", input.webhook)
    const { client } = yield* authenticated(flags)
    const result = yield* answer(
      flags.url,
      client.webhooks.delete({ params: { webhook_nanoid: id }, responseMode: "decoded-and-response" })
    )
    yield* show(flags.json, result, () => `Deleted ${id}`)
  })
).pipe(Command.withDescription("Delete a webhook endpoint"))

const rotate = Command.make(
  "rotate",
  { webhook: webhookArgument },
  Effect.fn("svc.webhooks.rotate")(function* (input) {
    const flags = yield* svc
    const id = yield* webhookId("webhook", input.webhook)
    const { client } = yield* authenticated(flags)
    const result = yield* answer(
      flags.url,
      client.webhooks.rotateSecret({ params: { webhook_nanoid: id }, responseMode: "decoded-and-response" })
    )
    yield* show(flags.json, result, ({ data }) =>
      fields([
        ["Secret", `${data.secret} (shown only now)`],
        ["Previous secret until", localDate(data.previous_expires_at)]
      ])
    )
  })
).pipe(Command.withDescription("Rotate the signing secret (the old one keeps signing beside it for 24 hours)"))

const test = Command.make(
  "test",
  {
    webhook: webhookArgument,
    event: Flag.String("event").pipe(Flag.withDescription("The event kind to simulate, e.g. payment.sent")),
    version: Flag.Int("version").pipe(
      Flag.withDescription("Payload major version, 1 to 10 (default 2)"),
      Flag.withDefault(2)
    )
  },
  Effect.fn("svc.webhooks.test")(function* (input) {
    const flags = yield* svc
    const id = yield* webhookId("webhook", input.webhook)
    const [event_type] = yield* parseEvents("--event", input.event)
    if (input.version < 1 || input.version > 10) return yield* badArgument("--version", "expected 1 to 10")
    const { client } = yield* authenticated(flags)
    const result = yield* answer(
      flags.url,
      client.webhooks.test({
        params: { webhook_nanoid: id },
        payload: { event_type: event_type as EventType, version: input.version },
        responseMode: "decoded-and-response"
      })
    )
    yield* show(flags.json, result, ({ data }) =>
      fields([
        ["Delivery", data.delivery_nanoid],
        ["Message", data.message]
      ])
    )
  })
).pipe(Command.withDescription("Send a test delivery of an event kind to an endpoint"))

const deliveries = Command.make(
  "deliveries",
  {
    webhook: webhookArgument,
    status: Flag.Literals("status", ["pending", "succeeded", "failed"]).pipe(
      Flag.withDescription("Only deliveries in this state"),
      Flag.optional
    ),
    cursor: Flag.String("cursor").pipe(Flag.withDescription("Continue after this cursor (next_cursor)"), Flag.optional),
    limit: Flag.Int("limit").pipe(Flag.withDescription("How many"), Flag.optional)
  },
  Effect.fn("svc.webhooks.deliveries")(function* (input) {
    const flags = yield* svc
    const id = yield* webhookId("webhook", input.webhook)
    if (Option.isSome(input.limit) && (input.limit.value < 1 || input.limit.value > 100)) {
      return yield* badArgument("--limit", "expected 1 to 100")
    }
    const { client } = yield* authenticated(flags)
    const result = yield* answer(
      flags.url,
      client.webhooks.deliveries({
        params: { webhook_nanoid: id },
        query: {
          ...(Option.isSome(input.status) ? { status: input.status.value } : {}),
          ...(Option.isSome(input.cursor) ? { cursor: input.cursor.value } : {}),
          ...(Option.isSome(input.limit) ? { limit: input.limit.value } : {})
        },
        responseMode: "decoded-and-response"
      })
    )
    yield* show(flags.json, result, ({ data }) => {
      const rows = table(
        data.items.map(deliveryRow),
        [
          { header: "DELIVERY", cell: (r) => r.delivery.delivery_nanoid },
          { header: "EVENT", cell: (r) => r.delivery.event_type },
          { header: "STATUS", cell: (r) => r.delivery.status },
          { header: "ATTEMPTS", cell: (r) => String(r.delivery.attempts.length) },
          { header: "LAST", cell: (r) => r.last },
          { header: "CREATED", cell: (r) => localDate(r.delivery.created_at) },
          { header: "RESPONSE BODY", cell: (r) => r.body }
        ],
        "No deliveries."
      )
      return data.next_cursor === null ? rows : `${rows}\nMore with --cursor ${data.next_cursor}`
    })
  })
).pipe(
  Command.withDescription(
    "The delivery log of an endpoint, newest first, with the start of each last answer's body (--json: every attempt's)"
  )
)

const retry = Command.make(
  "retry",
  {
    webhook: webhookArgument,
    delivery: Argument.String("delivery").pipe(Argument.withDescription("The delivery's nanoid"))
  },
  Effect.fn("svc.webhooks.retry")(function* (input) {
    const flags = yield* svc
    const id = yield* webhookId("webhook", input.webhook)
    const delivery = yield* deliveryId("delivery", input.delivery)
    const { client } = yield* authenticated(flags)
    const result = yield* answer(
      flags.url,
      client.webhooks.retry({
        params: { webhook_nanoid: id, delivery_nanoid: delivery },
        responseMode: "decoded-and-response"
      })
    )
    yield* show(flags.json, result, ({ data }) =>
      fields([
        ["Delivery", data.delivery_nanoid],
        ["Event", data.event_type],
        ["Status", data.status],
        ["Attempts", String(data.attempts.length)]
      ])
    )
  })
).pipe(Command.withDescription("Send a delivery again now"))

const recover = Command.make(
  "recover",
  {
    webhook: webhookArgument,
    since: Flag.String("since").pipe(
      Flag.withDescription("Re-queue every failed delivery since this date-time (ISO 8601)")
    )
  },
  Effect.fn("svc.webhooks.recover")(function* (input) {
    const flags = yield* svc
    const id = yield* webhookId("webhook", input.webhook)
    const millis = Date.parse(input.since)
    if (Number.isNaN(millis)) return yield* badArgument("--since", `"${input.since}" is not a date-time`)
    const { client } = yield* authenticated(flags)
    const result = yield* answer(
      flags.url,
      client.webhooks.recover({
        params: { webhook_nanoid: id },
        payload: { since: new Date(millis).toISOString() },
        responseMode: "decoded-and-response"
      })
    )
    yield* show(flags.json, result, ({ data }) => `Re-queued ${data.requeued} failed deliveries`)
  })
).pipe(Command.withDescription("Re-queue every failed delivery of an endpoint since a time"))

/** `svc webhooks`. */
export const webhooks = Command.make("webhooks").pipe(
  Command.withDescription(
    "Webhook endpoints: create, list, get, update, delete, rotate, test, deliveries, retry, recover"
  ),
  Command.withSubcommands([create, list, get, update, remove, rotate, test, deliveries, retry, recover])
)
