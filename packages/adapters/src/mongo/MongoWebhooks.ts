/**
 * Webhooks in MongoDB: endpoints in `webhook_endpoints` (`_id` = nanoid), a state change one conditional
 * `findOneAndUpdate` (in the unit of work's session, in one); the delivery log is `MongoWebhookDeliveries.ts`.
 */
import type { EventType } from "@svc/domain/event"
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
import type { Collection, Document } from "mongodb"
import { MongoDatabase } from "./MongoDatabase.ts"
import { recordDecoder } from "./MongoDocuments.ts"
import { toPort, tryMongo } from "./MongoErrors.ts"
import { unitOptions } from "./MongoTransaction.ts"

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

const findEndpoint = (col: Collection<EndpointDocument>, id: string) =>
  tryMongo(() => col.findOne({ _id: id })).pipe(
    Effect.flatMap((doc) =>
      doc === null ? Effect.fail(new WebhookNotFound({ nanoid: id })) : Effect.succeed(endpointOf(doc))
    )
  )

const subscribed = (col: Collection<EndpointDocument>, team: TeamId, type: EventType) =>
  tryMongo(() => col.find({ team_nanoid: team, state: "active" }).sort({ created_at: 1, _id: 1 }).toArray()).pipe(
    Effect.map((docs) => docs.map(endpointOf).filter((e) => e.events.includes(type)))
  )

/** Moves the endpoint from `from` with one conditional write (in the unit of work, in one), or says why not. */
const transition = (
  col: Collection<EndpointDocument>,
  { id, from, to }: { id: WebhookId; from: WebhookState; to: WebhookState },
  patch: WebhookEndpointPatch
) =>
  Effect.gen(function* () {
    const options = yield* unitOptions
    const moved = yield* tryMongo(() =>
      col.findOneAndUpdate({ _id: id, state: from }, updateOf(patch, { state: to }) as never, {
        ...options,
        returnDocument: "after"
      })
    )
    if (moved !== null) return endpointOf(moved)
    const found = yield* tryMongo(() => col.findOne({ _id: id }, options))
    return yield* found === null
      ? Effect.fail(new WebhookNotFound({ nanoid: id }))
      : Effect.fail(new StaleState({ resource: "webhook", id, expected: from }))
  })

/** Stored endpoints. */
export const endpoints = Layer.effect(
  WebhookEndpointRepository,
  Effect.gen(function* () {
    const { db } = yield* MongoDatabase
    const col = db.collection<EndpointDocument>("webhook_endpoints")
    yield* toPort(tryMongo(() => col.createIndex({ team_nanoid: 1, created_at: 1, _id: 1 })))
    return WebhookEndpointRepository.of({
      insert: (endpoint) =>
        tryMongo(() => col.insertOne({ _id: endpoint.nanoid, ...endpoint })).pipe(Effect.asVoid, toPort),
      findById: (id) => toPort(findEndpoint(col, id)),
      listByTeam: (team) =>
        tryMongo(() => col.find({ team_nanoid: team }).sort({ created_at: 1, _id: 1 }).toArray()).pipe(
          Effect.map((docs) => docs.map(endpointOf)),
          toPort
        ),
      subscribed: (team, type) => toPort(subscribed(col, team, type)),
      update: (id, patch) =>
        tryMongo(() => col.updateOne({ _id: id }, updateOf(patch) as never)).pipe(
          Effect.flatMap(() => findEndpoint(col, id)),
          toPort
        ),
      transition: (id, from, to, patch) => toPort(transition(col, { id, from, to }, patch)),
      delete: (id) =>
        tryMongo(() => col.deleteOne({ _id: id })).pipe(
          Effect.map((r) => r.deletedCount > 0),
          toPort
        )
    })
  })
)

import { deliveries } from "./MongoWebhookDeliveries.ts"

export { deliveries }

/** Both webhook ports. */
export const layer = Layer.mergeAll(endpoints, deliveries)
