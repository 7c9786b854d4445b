/**
 * The invite expiry worker: pending invites whose lifetime passed become `expired`, each with its `invite.expired`
 * event. Any number of workers may run: each invite moves by one conditional step, so it expires once.
 */
import { Duration, Effect, Layer } from "effect"
import { repeatQuietly } from "../Worker.ts"
import { Invites } from "./Invites.ts"

/** A worker sweeping every `every` (default one minute) for the lifetime of the layer's scope. */
export const layer = (options: { readonly every?: Duration.Input } = {}) =>
  Layer.effectDiscard(
    repeatQuietly(
      "invite expiry",
      Invites.use((invites) => invites.expireDue()),
      { every: options.every ?? Duration.minutes(1) }
    ).pipe(Effect.forkScoped)
  )
