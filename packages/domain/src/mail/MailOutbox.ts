/**
 * The mail outbox: the use case queues mails (`enqueue`) in the same `UnitOfWork` as the change that causes them (an
 * invite created or sent again), and a worker sends them later, so a mail server that is down never blocks or fails a
 * request.
 */
import { Context, type Effect } from "effect"
import type { FencingToken, Lease } from "../Lease.ts"
import type { Mail } from "./Mail.ts"

/** A queued mail held by one worker: the mail, its lease, and how many attempts failed before this one. */
export interface ClaimedMail {
  readonly mail: Mail
  readonly lease: Lease
  readonly attempts: number
}

/**
 * Queued mails. Implementations must queue a batch all-or-nothing, inside a `UnitOfWork` with the unit (none of it
 * when the unit fails); lease each claimed mail to one worker at a time across processes (the adapter's
 * `Leases`), let only the current holder mark it, and forget a sent mail's text (it holds a single-use token).
 * `retryAt` hands the mail back, free again from `at` (epoch ms); `give up` keeps it as failed, never claimed again.
 */
export class MailOutbox extends Context.Service<
  MailOutbox,
  {
    /** Queues the mails (state `queued`, due now, no attempt yet), all or none; in a unit of work, with it. */
    readonly enqueue: (mails: ReadonlyArray<Mail>) => Effect.Effect<void>
    /** Up to `limit` queued mails due at `now` (epoch ms), oldest first, leased until `now + leaseMillis`. */
    readonly claim: (options: {
      readonly now: number
      readonly limit: number
      readonly leaseMillis: number
    }) => Effect.Effect<ReadonlyArray<ClaimedMail>>
    /** Marks the mail sent (and erases its text); false when `token` is no longer its lease's current one. */
    readonly markSent: (id: string, token: FencingToken) => Effect.Effect<boolean>
    /** One more failed attempt: due again at `at`, or failed for good when `giveUp`. */
    readonly retryAt: (
      id: string,
      token: FencingToken,
      options: { readonly at: number; readonly error: string; readonly giveUp: boolean }
    ) => Effect.Effect<boolean>
    /** The mail's state (`queued`, `sent`, `failed`), for tests and support; `undefined` when unknown. */
    readonly stateOf: (id: string) => Effect.Effect<"queued" | "sent" | "failed" | undefined>
  }
>()("@svc/domain/mail/MailOutbox") {}
