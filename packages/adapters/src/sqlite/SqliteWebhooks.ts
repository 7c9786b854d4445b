/**
 * Webhooks in SQLite: endpoints in `webhook_endpoints` (the record as JSON beside the columns queries use), the
 * delivery log in `webhook_deliveries` (one row per event and endpoint) and `webhook_attempts` (one row per attempt).
 * Due deliveries are taken with the adapter's one lease mechanism (`Leases.ts`); an attempt and the delivery's new
 * state are written in one transaction, only while the attempt's holder still holds the delivery.
 */
import type { DatabaseSync } from "node:sqlite"
import { DomainEvent, PayloadVersion } from "@svc/domain/event"
import { DeliveryId, TeamId, WebhookId } from "@svc/domain/Ids"
import { StaleState } from "@svc/domain/StaleState"
import {
  type DeliveryAttempt,
  type DeliveryStatus,
  type LoggedDelivery,
  type WebhookDelivery,
  WebhookDeliveryStore,
  type WebhookEndpointPatch,
  WebhookEndpointRecord,
  WebhookEndpointRepository,
  WebhookNotFound
} from "@svc/domain/webhook"
import { Effect, Layer, Schema } from "effect"
import * as Leases from "./Leases.ts"
import * as RowDecoder from "./RowDecoder.ts"
import { backlogOf, SqliteDatabase } from "./SqliteDatabase.ts"
import { attemptStatements } from "./SqliteDeliveryAttempts.ts"

/** The record after `patch` (fields set, `unset` ones removed). */
export const patched = (record: WebhookEndpointRecord, patch: WebhookEndpointPatch): WebhookEndpointRecord => {
  const { unset = [], ...fields } = patch
  const next: Record<string, unknown> = { ...record, ...fields }
  for (const key of unset) delete next[key]
  return next as WebhookEndpointRecord
}

const decodeEndpoint = RowDecoder.records("webhook_endpoints", WebhookEndpointRecord)
const endpointOf = (row: Record<string, unknown>): WebhookEndpointRecord => decodeEndpoint(row.record)
const recordOf = (row: Record<string, unknown> | undefined) => (row === undefined ? undefined : endpointOf(row))

/** The statements of the endpoints store, prepared once on the connection. */
const endpointStatements = (connection: DatabaseSync) => ({
  insert: connection.prepare(
    "INSERT INTO webhook_endpoints (nanoid, team_nanoid, state, created_at, record) VALUES (?, ?, ?, ?, ?)"
  ),
  find: connection.prepare("SELECT record FROM webhook_endpoints WHERE nanoid = ?"),
  byTeam: connection.prepare("SELECT record FROM webhook_endpoints WHERE team_nanoid = ? ORDER BY created_at, nanoid"),
  active: connection.prepare(
    "SELECT record FROM webhook_endpoints WHERE team_nanoid = ? AND state = 'active' ORDER BY created_at, nanoid"
  ),
  write: connection.prepare("UPDATE webhook_endpoints SET state = ?, record = ? WHERE nanoid = ?"),
  remove: connection.prepare("DELETE FROM webhook_endpoints WHERE nanoid = ?")
})

/** The endpoints store: its statements and the database's transaction. */
interface Endpoints extends ReturnType<typeof endpointStatements> {
  readonly transaction: SqliteDatabase["Service"]["transaction"]
}

type EndpointPort = WebhookEndpointRepository["Service"]

const insertEndpoint = (store: Endpoints, endpoint: WebhookEndpointRecord) => {
  store.insert.run(endpoint.nanoid, endpoint.team_nanoid, endpoint.state, endpoint.created_at, JSON.stringify(endpoint))
}

const updateEndpoint = (store: Endpoints, id: string, patch: WebhookEndpointPatch) => {
  const updated = store.transaction(() => {
    const record = recordOf(store.find.get(id))
    if (record === undefined) return undefined
    const next = patched(record, patch)
    store.write.run(next.state, JSON.stringify(next), id)
    return next
  })
  return updated === undefined ? Effect.fail(new WebhookNotFound({ nanoid: id })) : Effect.succeed(updated)
}

const transitionEndpoint = (
  store: Endpoints,
  [id, from, to, patch]: Parameters<EndpointPort["transition"]>
): Effect.Effect<WebhookEndpointRecord, WebhookNotFound | StaleState> => {
  const updated = store.transaction(() => {
    const record = recordOf(store.find.get(id))
    if (record === undefined || record.state !== from) return record === undefined ? undefined : "stale"
    const next = { ...patched(record, patch), state: to }
    store.write.run(next.state, JSON.stringify(next), id)
    return next
  })
  if (updated === undefined) return Effect.fail(new WebhookNotFound({ nanoid: id }))
  if (updated === "stale") return Effect.fail(new StaleState({ resource: "webhook", id, expected: from }))
  return Effect.succeed(updated)
}

/** Stored endpoints. */
export const endpoints = Layer.effect(
  WebhookEndpointRepository,
  Effect.gen(function* () {
    const { connection, transaction } = yield* SqliteDatabase
    const store: Endpoints = { ...endpointStatements(connection), transaction }
    return WebhookEndpointRepository.of({
      insert: (endpoint) => Effect.sync(() => insertEndpoint(store, endpoint)),
      findById: (id) =>
        Effect.suspend(() => {
          const record = recordOf(store.find.get(id))
          return record === undefined ? Effect.fail(new WebhookNotFound({ nanoid: id })) : Effect.succeed(record)
        }),
      listByTeam: (team) => Effect.sync(() => store.byTeam.all(team).map(endpointOf)),
      subscribed: (team, type) =>
        Effect.sync(() =>
          store.active
            .all(team)
            .map(endpointOf)
            .filter((endpoint) => endpoint.events.includes(type))
        ),
      update: (id, patch) => Effect.suspend(() => updateEndpoint(store, id, patch)),
      transition: (...args) => Effect.suspend(() => transitionEndpoint(store, args)),
      delete: (id) => Effect.sync(() => store.remove.run(id).changes > 0)
    })
  })
)

const optional = <A>(value: A | null): A | undefined => (value === null ? undefined : value)

/** A `webhook_deliveries` row: the delivery's columns, the event as JSON. */
const DeliveryRow = Schema.Struct({
  nanoid: DeliveryId,
  webhook_nanoid: WebhookId,
  team_nanoid: TeamId,
  event: Schema.String,
  version: Schema.NullOr(PayloadVersion),
  status: Schema.Literals(["pending", "succeeded", "failed"]),
  attempts: Schema.Number,
  next_attempt_at: Schema.NullOr(Schema.Number),
  first_attempt_at: Schema.NullOr(Schema.Number),
  created_at: Schema.Number,
  updated_at: Schema.Number
})

const deliveryRowOf = RowDecoder.rows("webhook_deliveries", DeliveryRow)
const deliveryEventOf = RowDecoder.records("webhook_deliveries", DomainEvent, RowDecoder.smallMemoSize)

const deliveryOf = (row: Record<string, unknown>): WebhookDelivery => {
  const { event, version, status, next_attempt_at, first_attempt_at, ...columns } = deliveryRowOf(row)
  const delivered: DeliveryStatus = status
  return {
    ...columns,
    event: deliveryEventOf(event, columns.nanoid),
    ...(version === null ? {} : { version }),
    status: delivered,
    next_attempt_at: optional(next_attempt_at),
    first_attempt_at: optional(first_attempt_at)
  }
}

const columns = `nanoid, webhook_nanoid, team_nanoid, event, version, status, attempts, next_attempt_at,
  first_attempt_at, created_at, updated_at`

/** The statements of the delivery log, prepared once on the connection. */
const deliveryStatements = (connection: DatabaseSync) => {
  const leases = Leases.on(connection, { table: "webhook_deliveries", row: "nanoid = :nanoid", key: "nanoid" })
  const requeueFailed = (column: "created_at" | "updated_at") =>
    connection.prepare(
      `UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = :now, first_attempt_at = NULL,
         updated_at = :now WHERE webhook_nanoid = :webhook AND status = 'failed' AND ${column} >= :since`
    )
  return {
    insert: connection.prepare(
      `INSERT INTO webhook_deliveries (nanoid, webhook_nanoid, team_nanoid, event_id, event, version, status, attempts,
         next_attempt_at, first_attempt_at, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (event_id, webhook_nanoid) DO NOTHING`
    ),
    claim: leases.takeMany({
      when: "status = 'pending' AND next_attempt_at <= :now",
      order: "next_attempt_at, nanoid",
      returning: columns
    }),
    finish: leases.release({
      set: `status = :status, attempts = attempts + :counted, next_attempt_at = :next,
        first_attempt_at = :first, updated_at = :at`
    }),
    find: connection.prepare(`SELECT ${columns} FROM webhook_deliveries WHERE nanoid = ?`),
    backlog: connection.prepare(
      "SELECT count(*) AS n, min(created_at) AS oldest FROM webhook_deliveries WHERE status = 'pending'"
    ),
    page: connection.prepare(
      `SELECT ${columns} FROM webhook_deliveries
       WHERE webhook_nanoid = :webhook AND (:status IS NULL OR status = :status)
         AND (:beforeAt IS NULL OR created_at < :beforeAt OR (created_at = :beforeAt AND nanoid < :beforeId))
       ORDER BY created_at DESC, nanoid DESC LIMIT :limit`
    ),
    attempts: attemptStatements(connection),
    requeue: connection.prepare(
      `UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = :now, first_attempt_at = NULL,
         updated_at = :now WHERE nanoid = :nanoid`
    ),
    requeueFailedBy: { created: requeueFailed("created_at"), updated: requeueFailed("updated_at") }
  }
}

/** The delivery log: its statements and the database's transaction. */
interface Deliveries extends ReturnType<typeof deliveryStatements> {
  readonly transaction: SqliteDatabase["Service"]["transaction"]
}

type DeliveryPort = WebhookDeliveryStore["Service"]

/** The deliveries of `rows` with their attempts. */
const logged = (store: Deliveries, rows: ReadonlyArray<Record<string, unknown>>): ReadonlyArray<LoggedDelivery> => {
  const list = rows.map(deliveryOf)
  const attempts = new Map<string, Array<DeliveryAttempt>>()
  for (const attempt of store.attempts.of(list.map((d) => d.nanoid))) {
    const of = attempts.get(attempt.delivery_nanoid) ?? []
    of.push(attempt)
    attempts.set(attempt.delivery_nanoid, of)
  }
  return list.map((d) => ({ ...d, attempt_log: attempts.get(d.nanoid) ?? [] }))
}

const enqueue = (store: Deliveries, list: ReadonlyArray<WebhookDelivery>) =>
  store.transaction(() => {
    for (const d of list) {
      store.insert.run(
        d.nanoid,
        d.webhook_nanoid,
        d.team_nanoid,
        d.event.id,
        JSON.stringify(d.event),
        d.version ?? null,
        d.status,
        d.attempts,
        d.next_attempt_at ?? null,
        d.first_attempt_at ?? null,
        d.created_at,
        d.updated_at
      )
    }
  })

const claimDue = (store: Deliveries, { now, limit, leaseMillis }: Parameters<DeliveryPort["claimDue"]>[0]) => {
  const until = now + leaseMillis
  return store
    .claim({ now, until, limit })
    .map((row) => ({ delivery: deliveryOf(row), lease: Leases.leaseOf(row, until) }))
    .sort((a, b) => (a.delivery.next_attempt_at ?? 0) - (b.delivery.next_attempt_at ?? 0))
}

const recordAttempt = (store: Deliveries, [id, token, record]: Parameters<DeliveryPort["record"]>) =>
  store.transaction(() => {
    const applied = store.finish({
      nanoid: id,
      token,
      status: record.status,
      counted: record.attempt === undefined ? 0 : 1,
      next: record.next_attempt_at ?? null,
      first: record.first_attempt_at ?? null,
      at: record.at
    })
    if (applied && record.attempt !== undefined) store.attempts.insert(record.attempt)
    return applied
  })

/** The delivery log. */
export const deliveries = Layer.effect(
  WebhookDeliveryStore,
  Effect.gen(function* () {
    const { connection, transaction } = yield* SqliteDatabase
    const store: Deliveries = { ...deliveryStatements(connection), transaction }
    return WebhookDeliveryStore.of({
      enqueue: (list) => Effect.sync(() => enqueue(store, list)),
      claimDue: (options) => Effect.sync(() => claimDue(store, options)),
      record: (...args) => Effect.sync(() => recordAttempt(store, args)),
      findById: (id) =>
        Effect.sync(() => {
          const row = store.find.get(id)
          return row === undefined ? undefined : logged(store, [row])[0]
        }),
      list: (webhook, options) =>
        Effect.sync(() =>
          logged(
            store,
            store.page.all({
              webhook,
              status: options.status ?? null,
              beforeAt: options.before?.created_at ?? null,
              beforeId: options.before?.nanoid ?? null,
              limit: options.limit
            })
          )
        ),
      requeue: (id, now) => Effect.sync(() => store.requeue.run({ nanoid: id, now }).changes > 0),
      requeueFailed: (webhook, { since, by, now }) =>
        Effect.sync(() => Number(store.requeueFailedBy[by].run({ webhook, since, now }).changes)),
      backlog: Effect.sync(() => backlogOf(store.backlog.get()))
    })
  })
)

/** Both webhook ports. */
export const layer = Layer.mergeAll(endpoints, deliveries)
