/**
 * The invite expiry worker: pending invites whose lifetime passed become `expired`, each with its `invite.expired`
 * event. Any number of workers may run: each invite moves by one conditional step, so it expires once.
 */
import { Duration, Effect, Layer, Schedule } from "effect"
import { Invites } from "./Invites.ts"

/** A worker sweeping every `every` (default one minute) for the lifetime of the layer's scope. */
export const layer = (options: { readonly every?: Duration.Input } = {}) =>
  Layer.effectDiscard(
    Invites.use((invites) => invites.expireDue()).pipe(
      Effect.catchCause((cause) => Effect.logError("invite expiry pass failed", cause)),
      Effect.repeat(Schedule.spaced(options.every ?? Duration.minutes(1))),
      Effect.forkScoped
    )
  )
