/**
 * The webhook dispatcher: a worker every API process runs (DESIGN §5). It fans each recorded event out to the team's
 * active endpoints that subscribe to its kind (one delivery per event and endpoint), then sends due deliveries,
 * signed, recording every attempt and scheduling retries. Events and deliveries are claimed with leases, so any
 * number of dispatchers share the work; a dispatcher that dies mid-send loses nothing: its lease lapses and another
 * attempt is made.
 */
import { Context, Duration, Effect, Layer } from "effect"
import type { EventOutbox } from "../event/EventOutbox.ts"
import type { IdGenerator } from "../Ids.ts"
import type { Randomness } from "../Randomness.ts"
import type { ChangeTopic } from "../StorageChanges.ts"
import type { UnitOfWork } from "../UnitOfWork.ts"
import { runOn } from "../UseCases.ts"
import { repeatQuietly } from "../Worker.ts"
import { type DeliverySettings, deliverDue } from "./DeliverDue.ts"
import { fanOutEvents } from "./FanOut.ts"
import { defaultRetrySchedule, deliveryTimeoutMillis, type RetrySchedule } from "./WebhookDelivery.ts"
import type { WebhookSecret } from "./WebhookEndpoint.ts"
import type { WebhookDeliveryStore, WebhookEndpointRepository } from "./WebhookRepository.ts"
import { WebhookSecretBox, type WebhookSender } from "./WebhookSender.ts"

export { webhookAttempts } from "./DeliverDue.ts"

/** What the dispatcher's steps run on. */
type DispatcherPorts =
  | EventOutbox
  | WebhookEndpointRepository
  | WebhookDeliveryStore
  | WebhookSender
  | WebhookSecretBox
  | IdGenerator
  | Randomness
  | UnitOfWork

/** How a dispatcher works; the defaults are DESIGN §5's. */
export interface DispatcherOptions {
  /** How long to wait when there is nothing to do (ms). */
  readonly idleMillis?: number | undefined
  readonly schedule?: RetrySchedule | undefined
  /** How long a claimed event or delivery is held before another dispatcher may take it (ms). */
  readonly leaseMillis?: number | undefined
  /** Deliveries claimed, and sent concurrently, at a time by one delivery loop. */
  readonly batch?: number | undefined
  /** Delivery loops in this process, each claiming its own batch (so one slow receiver stalls no other). */
  readonly loops?: number | undefined
  readonly timeoutMillis?: number | undefined
}

/** One pass's work: events fanned out and attempts made. */
export interface DispatchPass {
  readonly events: number
  readonly attempts: number
}

/** The dispatcher's steps, for a worker loop or a test that drives it. */
export class WebhookDispatcher extends Context.Service<
  WebhookDispatcher,
  {
    /** Fans claimed events out into deliveries and marks them dispatched; answers how many events. */
    readonly fanOut: Effect.Effect<number>
    /** Claims due deliveries and makes one attempt of each; answers how many. */
    readonly deliverDue: Effect.Effect<number>
  }
>()("@svc/domain/webhook/WebhookDispatcher") {
  /** The steps on the webhook ports. */
  static readonly layer = (options: DispatcherOptions) =>
    Layer.effect(
      WebhookDispatcher,
      Effect.map(Effect.context<DispatcherPorts>(), (ports) => {
        const run = runOn(ports)
        const box = Context.get(ports, WebhookSecretBox)
        const leaseMillis = options.leaseMillis ?? 60_000
        // Secrets are opened once per sealed value: an AES decryption per attempt buys nothing.
        const opened = new Map<string, WebhookSecret>()
        const open = (sealed: string) => {
          const known = opened.get(sealed)
          return known === undefined
            ? Effect.tap(box.open(sealed), (secret) => Effect.sync(() => opened.set(sealed, secret)))
            : Effect.succeed(known)
        }
        const settings: DeliverySettings = {
          schedule: options.schedule ?? defaultRetrySchedule,
          leaseMillis,
          batch: options.batch ?? 32,
          timeoutMillis: options.timeoutMillis ?? deliveryTimeoutMillis,
          open
        }
        return WebhookDispatcher.of({
          fanOut: run(fanOutEvents({ leaseMillis })),
          deliverDue: run(deliverDue(settings))
        })
      })
    )

  /**
   * The dispatcher as a worker for the layer's lifetime: fan-out runs in a loop, delivery in `loops` (default 4), idle
   * for `idleMillis` (default 50 ms) when a pass found nothing, or until the storage tells of new events or deliveries
   * (`StorageChanges`; then idle for a second at most). A failed pass is logged and the loop goes on.
   */
  static readonly worker = (options: DispatcherOptions) =>
    Layer.effectDiscard(
      Effect.gen(function* () {
        const dispatcher = yield* WebhookDispatcher
        const idle = Duration.millis(options.idleMillis ?? 50)
        // A pass that found work is followed at once; an idle one waits `idle`; a failing one backs off quietly.
        const loop = (name: string, pass: Effect.Effect<number>, topic: ChangeTopic) =>
          repeatQuietly(`webhook ${name}`, Effect.repeat(pass, { while: (done) => done > 0 }), {
            every: idle,
            maxBackoff: Duration.seconds(30),
            wokenBy: { topic, streamingEvery: Duration.seconds(1) }
          }).pipe(Effect.forkScoped)
        yield* loop("fan-out", dispatcher.fanOut, "events")
        for (let i = 0; i < (options.loops ?? 4); i++) yield* loop("delivery", dispatcher.deliverDue, "deliveries")
      })
    ).pipe(Layer.provideMerge(WebhookDispatcher.layer(options)))
}
