/**
 * The contract of `RetentionStore`: one holder of the pruning lease at a time until it lapses, a larger fencing token
 * for each new holder, and pruning only by the current one; each kind pruned only once done and past the cutoff, at
 * most `limit` a call, and what is still open (an undispatched event, a pending delivery, an executing request, a
 * queued mail, a transaction not final) never.
 */
import { assert, describe, it } from "@effect/vitest"
import type { JournaledTransaction } from "@svc/domain/chain"
import { TransactionJournal } from "@svc/domain/chain"
import { IssuedRequestStore } from "@svc/domain/eip712"
import { EventOutbox } from "@svc/domain/event"
import type { DeliveryId, WebhookId } from "@svc/domain/Ids"
import { MailOutbox } from "@svc/domain/mail"
import { PaymentLedger } from "@svc/domain/payment"
import { RetentionStore } from "@svc/domain/retention"
import { type WebhookDelivery, WebhookDeliveryStore } from "@svc/domain/webhook"
import { Effect, Option } from "effect"
import type { Hex } from "viem"
import { event, issued, mail, teamId, wallet } from "./Fixtures.ts"
import type { StorageUnderTest } from "./Storage.ts"

const delivery = (n: number): WebhookDelivery => ({
  nanoid: `dl-${String(n).padStart(12, "0")}` as DeliveryId,
  webhook_nanoid: "wh-000000000001" as WebhookId,
  team_nanoid: teamId(1),
  event: event(n),
  status: "pending",
  attempts: 0,
  next_attempt_at: 1_000,
  created_at: 1_000,
  updated_at: 1_000
})

const transaction = (nonce: number, status: JournaledTransaction["status"], at: number): JournaledTransaction => ({
  hash: `0x${nonce.toString(16).padStart(64, "0")}` as Hex,
  chainId: 42161,
  relayer: wallet(1).toLowerCase() as JournaledTransaction["relayer"],
  nonce,
  to: wallet(2),
  data: "0xabcdef",
  gas: 21_000n,
  maxFeePerGas: 1_000n,
  maxPriorityFeePerGas: 1n,
  raw: "0x02",
  carries: [],
  status,
  createdAt: at,
  updatedAt: at
})

/** Registers the suite for `storage`. */
export const retentionContract = (storage: StorageUnderTest) =>
  describe(`RetentionStore (${storage.name})`, () => {
    it.live(
      "one holder of the pruning lease at a time, until it lapses; its token keeps it; a stale token prunes nothing",
      () =>
        Effect.gen(function* () {
          const store = yield* RetentionStore
          const a = Option.getOrThrow(yield* store.lease(undefined, 1_000, 2_000))
          assert.isTrue(Option.isNone(yield* store.lease(undefined, 1_500, 2_500)))
          assert.deepStrictEqual(
            yield* store.lease(a.token, 1_500, 3_000),
            Option.some({ token: a.token, until: 3_000 })
          )
          assert.isTrue(Option.isNone(yield* store.lease(undefined, 2_999, 4_000)))
          const b = Option.getOrThrow(yield* store.lease(undefined, 3_000, 4_000))
          assert.isAbove(b.token, a.token)
          assert.isTrue(Option.isNone(yield* store.lease(a.token, 3_500, 5_000)))
          // Paused past its lease, the first pruner deletes nothing; the holder does.
          const outbox = yield* EventOutbox
          yield* outbox.append([event(1)])
          const [claimed] = yield* outbox.claim({ now: 1, limit: 1, leaseMillis: 1 })
          yield* outbox.markDispatched(event(1).id, claimed?.lease.token ?? (0 as never))
          const cutoff = (event(1).created + 1) * 1000
          assert.strictEqual(yield* store.prune("events", cutoff, 10, a.token), 0)
          assert.isDefined(yield* outbox.findById(event(1).id))
          assert.strictEqual(yield* store.prune("events", cutoff, 10, b.token), 1)
        }).pipe(Effect.provide(storage.layer()))
    )

    it.live(
      "events, deliveries, requests, mails and transactions: only what is done and older, a batch at a time",
      () =>
        Effect.gen(function* () {
          const retention = yield* RetentionStore
          const { token } = Option.getOrThrow(yield* retention.lease(undefined, 0, Number.MAX_SAFE_INTEGER))
          const store = {
            prune: (kind: Parameters<typeof retention.prune>[0], before: number, limit: number) =>
              retention.prune(kind, before, limit, token)
          }
          // Events: recorded at second 1_700_000_00n; 1 and 2 fanned out, 3 not.
          const outbox = yield* EventOutbox
          yield* outbox.append([event(1), event(2), event(3)])
          for (const { event: e, lease } of yield* outbox.claim({ now: 1, limit: 2, leaseMillis: 1 })) {
            yield* outbox.markDispatched(e.id, lease.token)
          }
          const cutoff = (event(3).created + 1) * 1000
          assert.strictEqual(yield* store.prune("events", cutoff, 1), 1)
          assert.strictEqual(yield* store.prune("events", cutoff, 10), 1)
          assert.strictEqual(yield* store.prune("events", cutoff, 10), 0)
          assert.isUndefined(yield* outbox.findById(event(1).id))
          assert.isDefined(yield* outbox.findById(event(3).id))

          // Deliveries: 1 succeeded at 5 000, 2 given up at 6 000, 3 still pending; with their attempts.
          const deliveries = yield* WebhookDeliveryStore
          yield* deliveries.enqueue([delivery(1), delivery(2), delivery(3)])
          const claimed = yield* deliveries.claimDue({ now: 2_000, limit: 10, leaseMillis: 60_000 })
          const holderOf = (n: number) =>
            claimed.find((c) => c.delivery.nanoid === delivery(n).nanoid)?.lease.token ?? (0 as never)
          const attempt = (n: number, at: number) => ({
            delivery_nanoid: delivery(n).nanoid,
            number: 1,
            at,
            status_code: 500,
            duration_ms: 1
          })
          yield* deliveries.record(delivery(1).nanoid, holderOf(1), {
            attempt: attempt(1, 5_000),
            status: "succeeded",
            at: 5_000
          })
          yield* deliveries.record(delivery(2).nanoid, holderOf(2), {
            attempt: attempt(2, 6_000),
            status: "failed",
            at: 6_000
          })
          yield* deliveries.record(delivery(3).nanoid, holderOf(3), {
            attempt: attempt(3, 6_000),
            status: "pending",
            next_attempt_at: 100_000,
            at: 6_000
          })
          assert.strictEqual(yield* store.prune("deliveries", 5_500, 10), 1)
          assert.isUndefined(yield* deliveries.findById(delivery(1).nanoid))
          assert.strictEqual(yield* store.prune("deliveries", 50_000, 10), 1)
          assert.isUndefined(yield* deliveries.findById(delivery(2).nanoid))
          assert.strictEqual((yield* deliveries.findById(delivery(3).nanoid))?.attempt_log.length, 1)

          // Requests: "1" executed at 10 000, "2" executing since 10 000, "3" only issued.
          const requests = yield* IssuedRequestStore
          const ledger = yield* PaymentLedger
          for (const salt of ["1", "2", "3"]) yield* requests.issue(issued(salt))
          const claimAt = (salt: string) => requests.claim(salt, { now: 10_000, until: 30_000, signature: "0xsig" })
          const one = yield* claimAt("1")
          yield* claimAt("2")
          yield* ledger.recordExecution({
            salt: "1",
            token: one.claim.token,
            result: { transaction: "0xtx", payments: [] },
            payments: []
          })
          assert.strictEqual(yield* store.prune("requests", 20_000, 10), 1)
          assert.strictEqual((yield* Effect.flip(requests.find("1")))._tag, "TypedDataNotFound")
          assert.strictEqual((yield* requests.find("2")).salt, "2")
          assert.strictEqual((yield* requests.find("3")).salt, "3")

          // Mails: 1 sent, 2 given up, 3 queued.
          const mails = yield* MailOutbox
          yield* mails.enqueue([mail(1), mail(2), mail(3)])
          const queued = yield* mails.claim({ now: Date.now(), limit: 10, leaseMillis: 60_000 })
          const leaseOf = (n: number) => queued.find((q) => q.mail.id === mail(n).id)?.lease.token ?? (0 as never)
          yield* mails.markSent(mail(1).id, leaseOf(1))
          yield* mails.retryAt(mail(2).id, leaseOf(2), { at: Date.now(), error: "refused", giveUp: true })
          assert.strictEqual(yield* store.prune("mails", Date.now() + 1_000, 10), 2)
          assert.isUndefined(yield* mails.stateOf(mail(1).id))
          assert.strictEqual(yield* mails.stateOf(mail(3).id), "queued")

          // Transactions: 1 confirmed and 2 replaced long ago, 3 confirmed lately, 4 still sent.
          const journal = yield* TransactionJournal
          const relayer = transaction(1, "sent", 0).relayer
          const send = Option.getOrThrow(yield* journal.lease(42161, relayer, "send", undefined, 0, 100_000))
          for (const [nonce, status, at] of [
            [1, "confirmed", 1_000],
            [2, "replaced", 1_000],
            [3, "confirmed", 9_000],
            [4, "sent", 1_000]
          ] as const) {
            yield* journal.record(transaction(nonce, status, at), { lease: "send", token: send.token })
          }
          assert.strictEqual(yield* store.prune("transactions", 5_000, 10), 2)
          const left = yield* journal.versions(42161, transaction(3, "sent", 0).relayer, 3)
          assert.strictEqual(left.length, 1)
          assert.strictEqual((yield* journal.unfinished(42161, transaction(4, "sent", 0).relayer)).length, 1)
        }).pipe(Effect.provide(storage.layer()))
    )
  })
