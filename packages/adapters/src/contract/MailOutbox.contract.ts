/**
 * The contract of `MailOutbox`: mails are queued all-or-nothing, in a unit of work with it; queued mails are leased to one worker at a time, oldest first; only the holder marks
 * one sent or hands it back for a later attempt; a failed mail comes back when due, a given-up one never.
 */
import { assert, describe, it } from "@effect/vitest"
import { InviteRepository } from "@svc/domain/invite"
import { MailOutbox } from "@svc/domain/mail"
import { StaleState } from "@svc/domain/StaleState"
import { UnitOfWork } from "@svc/domain/UnitOfWork"
import { Effect, Exit } from "effect"
import { invite, inviteId, mail } from "./Fixtures.ts"
import type { StorageUnderTest } from "./Storage.ts"

/** Registers the suite for `storage`. */
export const mailOutboxContract = (storage: StorageUnderTest) =>
  describe(`MailOutbox (${storage.name})`, () => {
    it.live("enqueue queues mails all or none; in a unit, they commit with it or not at all", () =>
      Effect.gen(function* () {
        const outbox = yield* MailOutbox
        yield* outbox.enqueue([])
        yield* outbox.enqueue([mail(1), mail(2)])
        assert.strictEqual(yield* outbox.stateOf(mail(1).id), "queued")
        assert.strictEqual(yield* outbox.stateOf(mail(2).id), "queued")
        // A batch with a queued id (a defect) queues none of it.
        assert.isTrue(Exit.isFailure(yield* Effect.exit(outbox.enqueue([mail(3), mail(1)]))))
        assert.isUndefined(yield* outbox.stateOf(mail(3).id))
        const inUnit = <A, E, R>(effect: Effect.Effect<A, E, R>) => UnitOfWork.use((unit) => unit.run(effect))
        const lostRace = new StaleState({ resource: "invite", id: inviteId(1), expected: "pending" })
        // A unit that fails after queueing (its invite's race lost) leaves neither its invite nor its mails.
        const failed = yield* Effect.exit(
          inUnit(
            Effect.gen(function* () {
              yield* InviteRepository.use((i) => i.create([invite(1)]))
              yield* outbox.enqueue([mail(4), mail(5)])
              return yield* lostRace
            })
          )
        )
        assert.deepStrictEqual(failed, Exit.fail(lostRace))
        assert.isUndefined(yield* outbox.stateOf(mail(4).id))
        assert.isUndefined(yield* outbox.stateOf(mail(5).id))
        assert.strictEqual(
          (yield* Effect.flip(InviteRepository.use((i) => i.findById(inviteId(1)))))._tag,
          "InviteNotFound"
        )
        yield* inUnit(
          Effect.andThen(
            InviteRepository.use((i) => i.create([invite(1)])),
            outbox.enqueue([mail(4)])
          )
        )
        assert.strictEqual(yield* outbox.stateOf(mail(4).id), "queued")
        const claimed = yield* outbox.claim({ now: Date.now(), limit: 10, leaseMillis: 1000 })
        assert.deepStrictEqual(claimed.map((c) => c.mail.id).sort(), [mail(1).id, mail(2).id, mail(4).id])
        assert.deepStrictEqual(claimed.find((c) => c.mail.id === mail(4).id)?.mail, mail(4))
      }).pipe(Effect.provide(storage.layer()))
    )

    it.live("each queued mail is leased to one worker until it lapses; only the holder marks it sent", () =>
      Effect.gen(function* () {
        const outbox = yield* MailOutbox
        yield* outbox.enqueue([mail(1), mail(2), mail(3)])
        const now = Date.now()
        const [a, b] = yield* Effect.all(
          [outbox.claim({ now, limit: 2, leaseMillis: 1000 }), outbox.claim({ now, limit: 2, leaseMillis: 1000 })],
          { concurrency: "unbounded" }
        )
        const claimed = [...(a ?? []), ...(b ?? [])]
        assert.deepStrictEqual(claimed.map((c) => c.mail.id).sort(), [mail(1).id, mail(2).id, mail(3).id])
        assert.deepStrictEqual(claimed.find((c) => c.mail.id === mail(1).id)?.mail, mail(1))
        assert.isTrue(claimed.every((c) => c.attempts === 0))
        assert.deepStrictEqual(yield* outbox.claim({ now: now + 999, limit: 10, leaseMillis: 1000 }), [])
        const first = claimed.find((c) => c.mail.id === mail(1).id)!
        assert.isFalse(yield* outbox.markSent(mail(1).id, (first.lease.token + 1) as never))
        assert.isTrue(yield* outbox.markSent(mail(1).id, first.lease.token))
        assert.strictEqual(yield* outbox.stateOf(mail(1).id), "sent")
        // After the lease lapses the others come back, under larger tokens; the old holder's token changes nothing.
        const again = yield* outbox.claim({ now: now + 1000, limit: 10, leaseMillis: 1000 })
        assert.deepStrictEqual(again.map((c) => c.mail.id).sort(), [mail(2).id, mail(3).id])
        const stale = claimed.find((c) => c.mail.id === mail(2).id)!
        assert.isFalse(yield* outbox.markSent(mail(2).id, stale.lease.token))
        assert.strictEqual(yield* outbox.stateOf(mail(2).id), "queued")
        assert.isUndefined(yield* outbox.stateOf("unknown"))
      }).pipe(Effect.provide(storage.layer()))
    )

    it.live("a failed mail is due again at its time with one more attempt; a given-up mail is failed for good", () =>
      Effect.gen(function* () {
        const outbox = yield* MailOutbox
        yield* outbox.enqueue([mail(1)])
        const now = Date.now()
        const [claimed] = yield* outbox.claim({ now, limit: 10, leaseMillis: 60_000 })
        assert.isTrue(
          yield* outbox.retryAt(mail(1).id, claimed!.lease.token, { at: now + 5000, error: "421", giveUp: false })
        )
        assert.deepStrictEqual(yield* outbox.claim({ now: now + 4999, limit: 10, leaseMillis: 1000 }), [])
        const [retried] = yield* outbox.claim({ now: now + 5000, limit: 10, leaseMillis: 1000 })
        assert.strictEqual(retried?.attempts, 1)
        assert.deepStrictEqual(retried?.mail, mail(1))
        assert.isFalse(yield* outbox.retryAt(mail(1).id, claimed!.lease.token, { at: now, error: "x", giveUp: true }))
        assert.isTrue(yield* outbox.retryAt(mail(1).id, retried!.lease.token, { at: now, error: "550", giveUp: true }))
        assert.strictEqual(yield* outbox.stateOf(mail(1).id), "failed")
        assert.deepStrictEqual(yield* outbox.claim({ now: now + 100_000, limit: 10, leaseMillis: 1000 }), [])
      }).pipe(Effect.provide(storage.layer()))
    )
  })
