/**
 * Webhooks in MongoDB: endpoints in `webhook_endpoints` (`_id` = nanoid), a change and the event reporting it in one
 * transaction; the delivery log is `MongoWebhookDeliveries.ts`.
 */
import type { DomainEvent, EventType } from "@svc/domain/event"
import type { TeamId, WebhookId } from "@svc/domain/Ids"
import { StaleState } from "@svc/domain/StaleState"
import {
  type WebhookEndpointPatch,
  WebhookEndpointRecord,
  WebhookEndpointRepository,
  WebhookNotFound,
  type WebhookState
} from "@svc/domain/webhook"
import { Effect, Layer } from "effect"
import type { Collection, Db, Document, MongoClient } from "mongodb"
import { MongoDatabase } from "./MongoDatabase.ts"
import { recordDecoder } from "./MongoDocuments.ts"
import { appendInSession } from "./MongoEventOutbox.ts"
import { inTransaction } from "./MongoTransaction.ts"

interface EndpointDocument extends WebhookEndpointRecord {
  _id: string
}

const endpointOf = recordDecoder("webhook_endpoints", WebhookEndpointRecord)

/** `$set` and `$unset` of a patch. */
const updateOf = (patch: WebhookEndpointPatch, extra: Document = {}) => {
  const { unset = [], ...fields } = patch
  return {
    $set: { ...fields, ...extra },
    ...(unset.length === 0 ? {} : { $unset: Object.fromEntries(unset.map((key) => [key, ""])) })
  }
}

/** The collections the endpoints touch. */
interface EndpointCollections {
  readonly db: Db
  readonly client: MongoClient
  readonly endpoints: Collection<EndpointDocument>
}

const findEndpoint = (col: Collection<EndpointDocument>, id: string) =>
  Effect.promise(() => col.findOne({ _id: id })).pipe(
    Effect.flatMap((doc) =>
      doc === null ? Effect.fail(new WebhookNotFound({ nanoid: id })) : Effect.succeed(endpointOf(doc))
    )
  )

const subscribed = (col: Collection<EndpointDocument>, team: TeamId, type: EventType) =>
  Effect.promise(() => col.find({ team_nanoid: team, state: "active" }).sort({ created_at: 1, _id: 1 }).toArray()).pipe(
    Effect.map((docs) => docs.map(endpointOf).filter((e) => e.events.includes(type)))
  )

const transition = (
  collections: EndpointCollections,
  { id, from, to }: { id: WebhookId; from: WebhookState; to: WebhookState },
  patch: WebhookEndpointPatch,
  events: ReadonlyArray<DomainEvent>
) =>
  inTransaction(collections.client, async (session) => {
    const result = await collections.endpoints.updateOne(
      { _id: id, state: from },
      updateOf(patch, { state: to }) as never,
      { session }
    )
    // Events of a transition commit with it, numbered in the same transaction (decision 0024).
    if (result.modifiedCount === 1) await appendInSession(collections.db, events, session)
    return result
  }).pipe(
    Effect.flatMap(
      (result): Effect.Effect<WebhookEndpointRecord, WebhookNotFound | StaleState> =>
        result.modifiedCount === 1
          ? findEndpoint(collections.endpoints, id)
          : Effect.flatMap(findEndpoint(collections.endpoints, id), () =>
              Effect.fail(new StaleState({ resource: "webhook", id, expected: from }))
            )
    )
  )

/** Stored endpoints. */
export const endpoints = Layer.effect(
  WebhookEndpointRepository,
  Effect.gen(function* () {
    const { db, client } = yield* MongoDatabase
    const col = db.collection<EndpointDocument>("webhook_endpoints")
    const collections: EndpointCollections = {
      db,
      client,
      endpoints: col
    }
    yield* Effect.promise(() => col.createIndex({ team_nanoid: 1, created_at: 1, _id: 1 }))
    return WebhookEndpointRepository.of({
      insert: (endpoint) =>
        Effect.promise(() => col.insertOne({ _id: endpoint.nanoid, ...endpoint })).pipe(Effect.asVoid),
      findById: (id) => findEndpoint(col, id),
      listByTeam: (team) =>
        Effect.promise(() => col.find({ team_nanoid: team }).sort({ created_at: 1, _id: 1 }).toArray()).pipe(
          Effect.map((docs) => docs.map(endpointOf))
        ),
      subscribed: (team, type) => subscribed(col, team, type),
      update: (id, patch) =>
        Effect.promise(() => col.updateOne({ _id: id }, updateOf(patch) as never)).pipe(
          Effect.flatMap(() => findEndpoint(col, id))
        ),
      transition: (id, from, to, patch, events = []) => transition(collections, { id, from, to }, patch, events),
      delete: (id) => Effect.promise(() => col.deleteOne({ _id: id })).pipe(Effect.map((r) => r.deletedCount > 0))
    })
  })
)

import { deliveries } from "./MongoWebhookDeliveries.ts"

export { deliveries }

/** Both webhook ports. */
export const layer = Layer.mergeAll(endpoints, deliveries)
