/**
 * The dispatcher's first step: events claimed from the outbox become one delivery per subscribed endpoint, and are
 * marked dispatched. One delivery per (event, endpoint) whatever happens: a second fan-out after a crash adds nothing.
 */
import { Clock, Effect } from "effect"
import type { DomainEvent } from "../event/EventEnvelope.ts"
import { EventOutbox } from "../event/EventOutbox.ts"
import { IdGenerator } from "../Ids.ts"
import type { WebhookDelivery } from "./WebhookDelivery.ts"
import { WebhookDeliveryStore, WebhookEndpointRepository } from "./WebhookRepository.ts"

/** The deliveries of `event`, one per endpoint of its team subscribed to its kind, due `at`. */
const deliveriesOf = Effect.fn("WebhookDispatcher.deliveriesOf")(function* (event: DomainEvent, at: number) {
  if (event.team_nanoid === undefined) return []
  const team = event.team_nanoid
  const subscribed = yield* WebhookEndpointRepository.use((e) => e.subscribed(team, event.event_type))
  const ids = yield* IdGenerator
  return yield* Effect.forEach(
    subscribed,
    (endpoint): Effect.Effect<WebhookDelivery> =>
      Effect.map(ids.make("delivery"), (nanoid) => ({
        nanoid,
        webhook_nanoid: endpoint.nanoid,
        team_nanoid: team,
        event,
        status: "pending",
        attempts: 0,
        next_attempt_at: at,
        created_at: at,
        updated_at: at
      }))
  )
})

/** Fans up to 100 claimed events out (each leased for `leaseMillis`); answers how many events. */
export const fanOutEvents = (options: { readonly leaseMillis: number }) =>
  Effect.gen(function* () {
    const outbox = yield* EventOutbox
    const at = yield* Clock.currentTimeMillis
    const claimed = yield* outbox.claim({ now: at, limit: 100, leaseMillis: options.leaseMillis })
    if (claimed.length === 0) return 0
    const deliveries = yield* Effect.forEach(claimed, ({ event }) => deliveriesOf(event, at))
    yield* WebhookDeliveryStore.use((store) => store.enqueue(deliveries.flat()))
    yield* Effect.forEach(claimed, ({ event, lease }) => outbox.markDispatched(event.id, lease.token), {
      discard: true
    })
    return claimed.length
  }).pipe(Effect.withSpan("WebhookDispatcher.fanOut"))
