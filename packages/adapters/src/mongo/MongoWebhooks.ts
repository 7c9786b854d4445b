/**
 * Webhooks in MongoDB: endpoints in `webhook_endpoints` (`_id` = nanoid), a state change a conditional `updateOne`
 * (in the unit of work's session, in one); the delivery log is `MongoWebhookDeliveries.ts`.
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
import type { ClientSession, Collection, Document } from "mongodb"
import { MongoDatabase } from "./MongoDatabase.ts"
import { recordDecoder } from "./MongoDocuments.ts"
import { inUnitOr } from "./MongoTransaction.ts"

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
  Effect.promise(() => col.findOne({ _id: id })).pipe(
    Effect.flatMap((doc) =>
      doc === null ? Effect.fail(new WebhookNotFound({ nanoid: id })) : Effect.succeed(endpointOf(doc))
    )
  )

const subscribed = (col: Collection<EndpointDocument>, team: TeamId, type: EventType) =>
  Effect.promise(() => col.find({ team_nanoid: team, state: "active" }).sort({ created_at: 1, _id: 1 }).toArray()).pipe(
    Effect.map((docs) => docs.map(endpointOf).filter((e) => e.events.includes(type)))
  )

/** Moves the endpoint from `from` (in `session` when given): whether it moved, and the endpoint as it is then. */
const move = async (
  col: Collection<EndpointDocument>,
  { id, from, to }: { id: WebhookId; from: WebhookState; to: WebhookState },
  patch: WebhookEndpointPatch,
  session?: ClientSession
) => {
  const options = session === undefined ? {} : { session }
  const { modifiedCount } = await col.updateOne(
    { _id: id, state: from },
    updateOf(patch, { state: to }) as never,
    options
  )
  return { moved: modifiedCount === 1, doc: await col.findOne({ _id: id }, options) }
}

const transition = (
  col: Collection<EndpointDocument>,
  change: { id: WebhookId; from: WebhookState; to: WebhookState },
  patch: WebhookEndpointPatch
) =>
  inUnitOr(
    (session) => Effect.promise(() => move(col, change, patch, session)),
    Effect.promise(() => move(col, change, patch))
  ).pipe(
    Effect.flatMap(({ moved, doc }): Effect.Effect<WebhookEndpointRecord, WebhookNotFound | StaleState> => {
      if (doc === null) return Effect.fail(new WebhookNotFound({ nanoid: change.id }))
      return moved
        ? Effect.succeed(endpointOf(doc))
        : Effect.fail(new StaleState({ resource: "webhook", id: change.id, expected: change.from }))
    })
  )

/** Stored endpoints. */
export const endpoints = Layer.effect(
  WebhookEndpointRepository,
  Effect.gen(function* () {
    const { db } = yield* MongoDatabase
    const col = db.collection<EndpointDocument>("webhook_endpoints")
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
      transition: (id, from, to, patch) => transition(col, { id, from, to }, patch),
      delete: (id) => Effect.promise(() => col.deleteOne({ _id: id })).pipe(Effect.map((r) => r.deletedCount > 0))
    })
  })
)

import { deliveries } from "./MongoWebhookDeliveries.ts"

export { deliveries }

/** Both webhook ports. */
export const layer = Layer.mergeAll(endpoints, deliveries)
