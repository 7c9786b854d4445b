/**
 * Leases: how workers and replicas take turns on a stored record (an issued request being executed, a relayer key's
 * nonces and monitor, the deposit follower, a due intent, an event to fan out, an idempotency key, a delivery, a mail,
 * the pruning worker). Every storage adapter implements them one way (its `Leases` module) and answers a taken lease
 * as this type (decision 0090).
 *
 * A lease is a token, not a time (Kleppmann, "How to do distributed locking"): each taking of a record's lease gets a
 * fencing token larger than every earlier one, and every write made under the lease names it. The store refuses a
 * write whose token is no longer the record's current one, in the same conditional write: a holder paused past its
 * lease (a long GC, a swap storm, `SIGSTOP`) finds out from the store's answer, never from its own clock. A holder
 * renews while it works (`keepRenewed`) and stops before its next write once it cannot.
 */
import { Clock, Duration, Effect, Fiber, Option, Schema } from "effect"

/** A fencing token: grows with each new holder of one record's lease; a renewal keeps it. */
export const FencingToken = Schema.Int.pipe(Schema.brand("FencingToken"))
export type FencingToken = typeof FencingToken.Type

/** The token of a lease whose record says none (a record never leased reads as token 0). */
export const fencingTokenOf = (value: number): FencingToken => value as FencingToken

/**
 * A hold on a stored record: `token` names this taking of it, `until` when it lapses (epoch ms; it holds while
 * `now < until`). Only writes naming the record's current token apply; once the lease lapses another caller may take
 * it under a larger token, and the old token then changes nothing.
 */
export interface Lease {
  readonly token: FencingToken
  readonly until: number
}

/** The holder lost its lease: the store answered that its token is no longer the record's current one. */
export class LeaseLost extends Schema.TaggedError<LeaseLost>()("LeaseLost", {
  lease: Schema.String,
  token: Schema.Number
}) {
  override get message(): string {
    return `the lease on ${this.lease} (token ${this.token}) is held by another holder now`
  }
}

/** How `keepRenewed` holds a lease while its work runs. */
export interface RenewalOptions {
  /** What the lease is on, for `LeaseLost` and the logs. */
  readonly lease: string
  /** The lease as taken. */
  readonly held: Lease
  /** How long each renewal extends it (ms). */
  readonly leaseMillis: number
  /** Extends the lease to `until` for its token: the lease as renewed, or `None` when the token is no longer current. */
  readonly renew: (until: number) => Effect.Effect<Option.Option<Lease>, unknown>
}

/**
 * Runs `work` while a fiber renews its lease every third of `leaseMillis`. When the store answers that the token is
 * no longer current, or when the lease lapses without a renewal the store took (it failed meanwhile), `work` is
 * interrupted and the answer is `LeaseLost`: the holder stops before its next write, whatever that write was.
 * A renewal that fails is tried again at the next tick while the lease still holds.
 *
 * @example
 * yield* keepRenewed({ lease: `request ${salt}`, held: claim, leaseMillis, renew: (until) => store.renew(salt, claim.token, until) })(
 *   settle(claim)
 * )
 */
export const keepRenewed =
  (options: RenewalOptions) =>
  <A, E, R>(work: Effect.Effect<A, E, R>): Effect.Effect<A, E | LeaseLost, R> =>
    Effect.gen(function* () {
      const every = Duration.millis(Math.max(1, Math.floor(options.leaseMillis / 3)))
      const lost = new LeaseLost({ lease: options.lease, token: options.held.token })
      const renewing = Effect.gen(function* () {
        let until = options.held.until
        while (true) {
          yield* Effect.sleep(every)
          const now = yield* Clock.currentTimeMillis
          const renewed = yield* Effect.exit(options.renew(now + options.leaseMillis))
          if (renewed._tag === "Success") {
            if (Option.isNone(renewed.value)) return lost
            until = renewed.value.value.until
            continue
          }
          yield* Effect.logWarning(`renewing the lease on ${options.lease} failed; tried again`, renewed.cause)
          if ((yield* Clock.currentTimeMillis) >= until) return lost
        }
      })
      const renewal = yield* Effect.forkChild(renewing)
      const done = yield* Effect.raceFirst(
        Effect.map(Effect.exit(work), (exit) => ({ _tag: "Done" as const, exit })),
        Effect.map(Fiber.join(renewal), (error) => ({ _tag: "Lost" as const, error }))
      )
      yield* Fiber.interrupt(renewal)
      if (done._tag === "Lost") return yield* done.error
      return yield* done.exit
    })
