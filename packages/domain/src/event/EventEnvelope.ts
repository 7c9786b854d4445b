/**
 * Events as the domain records them, and the webhook envelopes of payload majors 1 and 2 (DESIGN §5).
 *
 * Both carry the team's `sequence` number of the event when it has one (test deliveries have none).
 * Major 2 (the default) nests the payload under `data` and carries the event id. Major 1 is the earlier shape:
 * no `id`, `event_version` "1.0", and the payload under one key named after the resource (`payment`,
 * `payment_group`, `invite`, ...). An endpoint pins one major; majors 3 to 10 are reserved and render as major 2.
 */
import { Clock, Effect, Schema } from "effect"
import { CompanyId, EventId, IdGenerator, TeamId } from "../Ids.ts"
import { type Randomness, randomHex } from "../Randomness.ts"
import { type EmittedEventType, EventCatalog, type EventType, EventTypeSchema } from "./EventCatalog.ts"

/** An event payload: a JSON object. */
export const EventData = Schema.Record(Schema.String, Schema.Unknown)
export type EventData = typeof EventData.Type

/** A UUID, as `idempotency_key` carries it. */
export const IdempotencyKey = Schema.String.pipe(Schema.check(Schema.isUUID()))

/** An event as recorded (in the outbox) before it is rendered for any endpoint. */
export const DomainEvent = Schema.Struct({
  id: EventId,
  event_type: EventTypeSchema,
  /** Unix seconds. */
  created: Schema.Int,
  company_nanoid: Schema.optionalKey(CompanyId),
  team_nanoid: Schema.optionalKey(TeamId),
  idempotency_key: IdempotencyKey,
  request_id: Schema.optionalKey(Schema.String),
  data: EventData,
  /** The event's place among its team's events (1, 2, ...), given by storage when it is recorded. */
  sequence: Schema.optionalKey(Schema.Int)
})
export type DomainEvent = typeof DomainEvent.Type

/** The webhook payload major version: 1 to 10, default 2 (SPEC §6, §8). */
export const PayloadVersion = Schema.Int.pipe(Schema.check(Schema.isBetween({ minimum: 1, maximum: 10 })))
export type PayloadVersion = typeof PayloadVersion.Type

/** The default payload major. */
export const defaultPayloadVersion = 2

/** Envelope of payload major 2: `{object, id, created, event_type, event_version, idempotency_key, data}`. */
export const EventEnvelopeV2 = Schema.Struct({
  object: Schema.Literal("event"),
  id: EventId,
  created: Schema.Int,
  event_type: EventTypeSchema,
  event_version: Schema.String.pipe(Schema.check(Schema.isPattern(/^([2-9]|10)\.0$/u))),
  idempotency_key: IdempotencyKey,
  request_id: Schema.optionalKey(Schema.String),
  data: EventData,
  sequence: Schema.optionalKey(Schema.Int)
})
export type EventEnvelopeV2 = typeof EventEnvelopeV2.Type

/** Envelope of payload major 1: the fields above without `id` and `data`, and the payload under its own key. */
export const EventEnvelopeV1 = Schema.StructWithRest(
  Schema.Struct({
    object: Schema.Literal("event"),
    created: Schema.Int,
    event_type: EventTypeSchema,
    event_version: Schema.Literal("1.0"),
    idempotency_key: IdempotencyKey,
    request_id: Schema.optionalKey(Schema.String),
    sequence: Schema.optionalKey(Schema.Int)
  }),
  [Schema.Record(Schema.String, Schema.Unknown)]
)
export type EventEnvelopeV1 = typeof EventEnvelopeV1.Type

/** Either envelope. */
export type EventEnvelope = EventEnvelopeV1 | EventEnvelopeV2

/** The key of major 1's payload for an event kind. */
export const payloadKeyOf = (type: EventType): string => EventCatalog[type].payloadKey

/** The envelope an endpoint pinned to `version` receives for the event. */
export const renderEnvelope = (event: DomainEvent, version: PayloadVersion): EventEnvelope => {
  const request = event.request_id === undefined ? {} : { request_id: event.request_id }
  const sequence = event.sequence === undefined ? {} : { sequence: event.sequence }
  if (version === 1) {
    return {
      object: "event",
      created: event.created,
      event_type: event.event_type,
      event_version: "1.0",
      idempotency_key: event.idempotency_key,
      ...request,
      [payloadKeyOf(event.event_type)]: event.data,
      ...sequence
    }
  }
  return {
    object: "event",
    id: event.id,
    created: event.created,
    event_type: event.event_type,
    event_version: `${version}.0`,
    idempotency_key: event.idempotency_key,
    ...request,
    data: event.data,
    ...sequence
  }
}

/** A v4-shaped UUID from 32 hex digits: version 4 in the 7th byte's high nibble, variant 10 in the 9th's top bits. */
export const uuidOfHex = (random: string): string => {
  const variant = ((Number.parseInt(random.slice(16, 18), 16) & 0x3f) | 0x80).toString(16)
  const hex = `${random.slice(0, 12)}4${random.slice(13, 16)}${variant}${random.slice(18, 32)}`
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}

/** A v4 UUID from `Randomness`. */
export const makeUuid: Effect.Effect<string, never, Randomness> = Effect.map(randomHex(16), uuidOfHex)

/** What a use case knows when something happened. */
export interface NewEvent {
  readonly event_type: EmittedEventType
  readonly data: EventData
  readonly company_nanoid?: CompanyId
  readonly team_nanoid?: TeamId
  readonly request_id?: string
}

/** Records that something happened now: a fresh event id, idempotency key and `created` from `Clock`. */
export const makeDomainEvent = Effect.fn("EventEnvelope.makeDomainEvent")(function* (event: NewEvent) {
  const ids = yield* IdGenerator
  const id = yield* ids.make("event")
  const idempotency_key = yield* makeUuid
  const created = Math.floor((yield* Clock.currentTimeMillis) / 1000)
  return { ...event, id, idempotency_key, created } satisfies DomainEvent as DomainEvent
})
