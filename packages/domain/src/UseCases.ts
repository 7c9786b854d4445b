/**
 * How a service runs its use cases: each use case is an `Effect.fn` over the ports it needs, and the service captures
 * those ports once, when it is built, and runs every call on them.
 */
import { Context, Effect, Layer } from "effect"

/**
 * A runner of use cases on `ports`, the context captured when the service was built. What the calling fiber's own
 * context holds wins over what was captured: its span, its request id and log annotations stay the caller's.
 *
 * @example
 * static readonly layer = Layer.effect(Webhooks, Effect.map(Effect.context<WebhookPorts>(), (ports) => {
 *   const run = runOn(ports)
 *   return Webhooks.of({ create: (caller, body) => run(createWebhook(caller, body)) })
 * }))
 */
export const runOn =
  <R>(ports: Context.Context<R>) =>
  <A, E>(useCase: Effect.Effect<A, E, R>): Effect.Effect<A, E> =>
    Effect.updateContext(useCase, (current: Context.Context<never>) => Context.merge(ports, current))

/** A runner of use cases on the ports `R` (see `runOn`). */
export type Runner<R> = <A, E>(useCase: Effect.Effect<A, E, R>) => Effect.Effect<A, E>

/**
 * The layer of a service whose operations run use cases on the ports `R`, captured when it is built: `build` maps
 * each operation to its use case through the runner it is given.
 *
 * @example
 * static readonly layer = useCaseLayer<WebhookPorts>()(Webhooks, (run) => ({
 *   create: (caller, body) => run(createWebhook(caller, body))
 * }))
 */
export const useCaseLayer =
  <R>() =>
  <I, S>(service: Context.Key<I, S>, build: (run: Runner<R>) => S): Layer.Layer<I, never, R> =>
    Layer.effect(
      service,
      Effect.map(Effect.context<R>(), (ports) => build(runOn(ports)))
    )
