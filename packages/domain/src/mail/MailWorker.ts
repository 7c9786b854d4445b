/**
 * The mail worker: sends queued mails, retrying a mail the server refused with a growing delay. Any number of workers
 * share the outbox: each mail is leased to one of them at a time (decision 0027).
 */
import { Clock, Duration, Effect, Layer } from "effect"
import { repeatQuietly } from "../Worker.ts"
import { Mailer } from "./Mailer.ts"
import { MailOutbox } from "./MailOutbox.ts"

/** How long a worker holds a mail while sending it (an SMTP exchange takes seconds at most). */
export const mailLeaseMillis = 60_000

/** Attempts before a mail is given up: with the delays below, about a day of retries. */
export const maxMailAttempts = 12

/** The delay after the `attempts`th failed attempt: 10 s doubling, at most an hour. */
export const retryDelayMillis = (attempts: number): number => Math.min(10_000 * 2 ** (attempts - 1), 3_600_000)

/** What became of one claimed mail. */
export type MailRun = "sent" | "retry_later" | "failed" | "lost"

/** Claims and sends due mails until none is left (or `limit` were tried); answers what became of each. */
export const sendQueuedMails = Effect.fn("MailWorker.sendQueuedMails")(function* (limit = 100) {
  const outbox = yield* MailOutbox
  const mailer = yield* Mailer
  const runs: Array<{ readonly id: string; readonly run: MailRun }> = []
  while (runs.length < limit) {
    const now = yield* Clock.currentTimeMillis
    const claimed = yield* outbox.claim({ now, limit: Math.min(10, limit - runs.length), leaseMillis: mailLeaseMillis })
    if (claimed.length === 0) break
    for (const { mail, lease, attempts } of claimed) {
      const sent = yield* mailer.send(mail).pipe(
        Effect.as(undefined),
        Effect.catchTag("MailNotSent", (error) => Effect.succeed(error.reason))
      )
      if (sent === undefined) {
        runs.push({ id: mail.id, run: (yield* outbox.markSent(mail.id, lease.token)) ? "sent" : "lost" })
        continue
      }
      const failures = attempts + 1
      const giveUp = failures >= maxMailAttempts
      // The reason names the server's answer, never the mail's text (it holds a token).
      yield* Effect.logWarning(`mail ${mail.id} not sent (attempt ${failures}): ${sent}`)
      const at = (yield* Clock.currentTimeMillis) + retryDelayMillis(failures)
      const held = yield* outbox.retryAt(mail.id, lease.token, { at, error: sent, giveUp })
      runs.push({ id: mail.id, run: held ? (giveUp ? "failed" : "retry_later") : "lost" })
    }
  }
  return runs
})

/** A worker polling the outbox every `every` (default 2 s) for the lifetime of the layer's scope. */
export const layer = (options: { readonly every?: Duration.Input } = {}) =>
  Layer.effectDiscard(
    repeatQuietly("mail worker", sendQueuedMails(), { every: options.every ?? Duration.seconds(2) }).pipe(
      Effect.forkScoped
    )
  )
