/**
 * Retention (issue 22, item 5): what only grows is pruned once it is old enough that nothing needs it. Each kind has
 * a window (an environment variable, `RETENTION_*_DAYS`; 0 keeps it for ever), and one worker at a time across
 * processes (a lease) deletes in bounded batches what left its window:
 *
 * - `events`: outbox events fanned out (their deliveries carry their own copy), by when they were recorded;
 * - `deliveries`: webhook deliveries that ended (succeeded or given up) with their attempts, by their last change;
 *   pending ones (due, or waiting in their retry window) are never pruned, and `recover` reaches back this far;
 * - `requests`: signed requests executed, by when they were claimed; issued ones have their own expiry sweep, and one
 *   still executing (a reconciliation may need it) is never pruned;
 * - `mails`: mails sent or given up, by when they were queued (they hold invite links);
 * - `transactions`: relayer transactions final (confirmed, replaced or failed), by their last change; the monitor
 *   and a reorganisation only ever look at recent ones.
 */
import { Context, type Effect, type Option } from "effect"
import type { FencingToken, Lease } from "../Lease.ts"

/** The kinds of records pruned. */
export const retainedKinds = ["events", "deliveries", "requests", "mails", "transactions"] as const
export type RetainedKind = (typeof retainedKinds)[number]

/** How long each kind is kept after it is done (ms); 0 keeps it for ever. */
export type RetentionWindows = Readonly<Record<RetainedKind, number>>

const days = (n: number) => n * 24 * 60 * 60 * 1000

/** The defaults (docs/operations.md): a week of events and mails, thirty days of the rest. */
export const defaultRetention: RetentionWindows = {
  events: days(7),
  deliveries: days(30),
  requests: days(30),
  mails: days(7),
  transactions: days(30)
}

/**
 * Where pruning happens. Implementations must delete only what the module's list allows, at most `limit` records a
 * call, give the lease to one holder at a time until it expires (a new fencing token for each new holder), and prune
 * only while the pruner's token is the lease's current one.
 */
export class RetentionStore extends Context.Service<
  RetentionStore,
  {
    /**
     * Takes or keeps the pruning lease until `until` (epoch ms): kept when `held` is its current token, taken under a
     * new one when free at `now`; `None` while another holds it.
     */
    readonly lease: (held: FencingToken | undefined, now: number, until: number) => Effect.Effect<Option.Option<Lease>>
    /**
     * Deletes up to `limit` records of `kind` done before `before` (epoch ms), while `token` holds the lease; answers
     * how many (0 once another holder took it).
     */
    readonly prune: (kind: RetainedKind, before: number, limit: number, token: FencingToken) => Effect.Effect<number>
  }
>()("@svc/domain/retention/RetentionStore") {}
