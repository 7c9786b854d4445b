/**
 * The MongoDB payment storage on jongodb: one claim of a salt among concurrent claimers, takeover of an abandoned
 * execution (and a stale holder's release or record refused, here and in memory), payments and events recorded together, intents leased to one runner at a time, the outbox's leases.
 */
import { randomUUID } from "node:crypto"
import { assert, describe, it } from "@effect/vitest"
import { IssuedTypedDataStore, type PaymentsTypedDataBundle } from "@svc/domain/eip712"
import { type DomainEvent, EventOutbox } from "@svc/domain/event"
import type { EventId, InvoiceId, PaymentGroupId, PaymentId, TeamId, UserId } from "@svc/domain/Ids"
import { executionLeaseMillis, type Payment, PaymentLedger } from "@svc/domain/payment"
import { Effect, Exit, Layer, Option } from "effect"
import { inject } from "vitest"
import * as MemoryPayments from "../memory/MemoryPayments.ts"
import { MongoDatabase } from "./MongoDatabase.ts"
import * as MongoEventOutbox from "./MongoEventOutbox.ts"
import * as MongoIssuedTypedDataStore from "./MongoIssuedTypedDataStore.ts"
import * as MongoPaymentLedger from "./MongoPaymentLedger.ts"

const storage = () =>
  Layer.mergeAll(MongoIssuedTypedDataStore.layer, MongoPaymentLedger.layer, MongoEventOutbox.layer).pipe(
    Layer.provideMerge(MongoDatabase.layer({ uri: inject("mongoUri"), database: `payments_${randomUUID()}` }))
  )

const team = "te-000000000001" as TeamId
const group_nanoid = "pg-000000000001" as PaymentGroupId
const bundle = (salt: string) =>
  ({
    domain: { name: "SvcAccountForwarder", version: "1.0.0", chainId: 42161, verifyingContract: `0x${"1".repeat(40)}` },
    types: {},
    primary_type: "CreatePaymentsForwardRequest",
    typed_data: {
      from: `0x${"2".repeat(40)}`,
      to: `0x${"3".repeat(40)}`,
      salt,
      expires: "9999999999",
      data: { payments: [] }
    }
  }) as unknown as PaymentsTypedDataBundle

const issue = (salt: string) =>
  IssuedTypedDataStore.use((store) =>
    store.issue({
      kind: "batch",
      salt,
      team,
      issuedTo: "us-000000000001" as UserId,
      signer: `0x${"2".repeat(40)}`,
      bundle: bundle(salt),
      request: {
        body: { from: team, to: [], pay_now: true },
        group_nanoid,
        account: `0x${"3".repeat(40)}`,
        payments: []
      }
    })
  )

let counter = 0
const payment = (overrides: Partial<Payment> = {}): Payment => {
  counter++
  const id = String(counter).padStart(12, "0")
  return {
    nanoid: `pa-${id}` as PaymentId,
    group_nanoid: "pg-000000000001" as PaymentGroupId,
    invoice_nanoid: `iv-${id}` as InvoiceId,
    team_nanoid: team,
    payer_nanoid: "us-000000000001" as UserId,
    recipient_nanoid: "us-000000000002" as UserId,
    state: "intent",
    amount_cents: 100,
    currency_symbol: "USD",
    token: `0x${"4".repeat(40)}`,
    token_amount: "1000000",
    token_decimals: 6,
    pay_type: "2",
    pay_at_time: 1000,
    valid_minutes: 1440,
    onchain_id: `0x${"5".repeat(64)}`,
    group_onchain_id: `0x${"6".repeat(64)}`,
    data: "0x",
    salt: "1",
    invoice: {
      invoice_description: "",
      role_description: "",
      services_description: "",
      payment_details: "",
      external_sow_url: "",
      svc_sow: false
    },
    created_at: `2026-01-01T00:00:${String(counter % 60).padStart(2, "0")}.000Z`,
    updated_at: "2026-01-01T00:00:00.000Z",
    ...overrides
  }
}

const event = (n: number, type: DomainEvent["event_type"] = "payment.sent"): DomainEvent => ({
  id: `ev-${String(n).padStart(12, "0")}` as EventId,
  event_type: type,
  created: 1_700_000_000 + n,
  team_nanoid: team,
  idempotency_key: randomUUID(),
  data: { n }
})

describe("MongoDB payment storage", () => {
  it.live(
    "of ten concurrent claims of one salt exactly one wins (20 rounds); a released claim can be claimed again",
    () =>
      Effect.gen(function* () {
        const store = yield* IssuedTypedDataStore
        // Many rounds: a racy primitive (jongodb's findOneAndUpdate) lets two claims through now and then.
        for (let round = 0; round < 20; round++) {
          const salt = String(1000 + round)
          yield* issue(salt)
          const claims = yield* Effect.all(
            Array.from({ length: 10 }, () => Effect.exit(store.claim(salt, Date.now()))),
            { concurrency: "unbounded" }
          )
          assert.strictEqual(claims.filter(Exit.isSuccess).length, 1)
        }
        yield* issue("42")
        const held = yield* store.claim("42", Date.now())
        yield* store.release("42", held.claimToken)
        assert.isTrue(Exit.isSuccess(yield* Effect.exit(store.claim("42", Date.now()))))
        const unknown = yield* Effect.exit(store.claim("43", Date.now()))
        assert.isTrue(Exit.isFailure(unknown))
      }).pipe(Effect.provide(storage()))
  )

  it.live("an execution is taken over only once its lease expired, by one taker; its record is all or nothing", () =>
    Effect.gen(function* () {
      const store = yield* IssuedTypedDataStore
      const ledger = yield* PaymentLedger
      yield* issue("7")
      const now = Date.now()
      yield* store.claim("7", now)
      assert.strictEqual((yield* ledger.outcome("7")).state, "executing")
      assert.isTrue(Option.isNone(yield* ledger.takeOver("7", now, now + 1000)))
      const later = now + executionLeaseMillis + 1
      const takers = yield* Effect.all(
        Array.from({ length: 5 }, () => ledger.takeOver("7", later, later + executionLeaseMillis)),
        { concurrency: "unbounded" }
      )
      const taken = takers.filter(Option.isSome)
      assert.strictEqual(taken.length, 1)
      const payments = [payment({ salt: "7" }), payment({ salt: "7" })]
      const token = (taken[0] as Option.Some<string>).value
      assert.isTrue(
        yield* ledger.recordExecution({
          salt: "7",
          claimToken: token,
          signature: "0x",
          result: { transaction: "0xabc", payments: [] },
          payments,
          events: [event(1), event(2)]
        })
      )
      const outcome = yield* ledger.outcome("7")
      assert.deepStrictEqual(outcome, { state: "executed", result: { transaction: "0xabc", payments: [] } })
      assert.strictEqual((yield* ledger.list({ states: ["intent"], payer: team })).length, 2)
      const outbox = yield* EventOutbox
      assert.isDefined(yield* outbox.findById(event(1).id))
    }).pipe(Effect.provide(storage()))
  )

  for (const [name, layer] of [
    ["MongoDB", storage],
    ["memory", () => MemoryPayments.layer]
  ] as const) {
    it.live(`${name}: a holder whose claim was taken over can neither release it nor record its execution`, () =>
      Effect.gen(function* () {
        const store = yield* IssuedTypedDataStore
        const ledger = yield* PaymentLedger
        yield* issue("11")
        const now = Date.now()
        const stale = yield* store.claim("11", now)
        const later = now + executionLeaseMillis + 1
        const taken = yield* ledger.takeOver("11", later, later + executionLeaseMillis)
        assert.isTrue(Option.isSome(taken))
        const token = (taken as Option.Some<string>).value
        assert.notStrictEqual(token, stale.claimToken)
        // The slow first holder meets a refusal and releases: the new holder's claim stands.
        yield* store.release("11", stale.claimToken)
        assert.deepStrictEqual(yield* ledger.outcome("11"), {
          state: "executing",
          leaseUntil: later + executionLeaseMillis
        })
        assert.strictEqual((yield* Effect.flip(store.claim("11", later)))._tag, "AlreadyExecuted")
        // Nor may it record: nothing of its record is written.
        const lost = payment({ salt: "11" })
        assert.isFalse(
          yield* ledger.recordExecution({
            salt: "11",
            claimToken: stale.claimToken,
            signature: "0x",
            result: { transaction: "0xold", payments: [] },
            payments: [lost],
            events: [event(30)]
          })
        )
        assert.strictEqual((yield* ledger.outcome("11")).state, "executing")
        assert.deepStrictEqual(yield* ledger.list({ states: ["intent"], payer: team }), [])
        assert.isUndefined(yield* (yield* EventOutbox).findById(event(30).id))
        // The new holder records.
        const kept = payment({ salt: "11" })
        assert.isTrue(
          yield* ledger.recordExecution({
            salt: "11",
            claimToken: token,
            signature: "0x",
            result: { transaction: "0xnew", payments: [] },
            payments: [kept],
            events: [event(31)]
          })
        )
        assert.deepStrictEqual(yield* ledger.outcome("11"), {
          state: "executed",
          result: { transaction: "0xnew", payments: [] }
        })
        assert.deepStrictEqual(
          (yield* ledger.list({ states: ["intent"], payer: team })).map((p) => p.nanoid),
          [kept.nanoid]
        )
        // A release after the record changes nothing either.
        yield* store.release("11", token)
        assert.strictEqual((yield* ledger.outcome("11")).state, "executed")
      }).pipe(Effect.provide(layer()))
    )
  }

  it.live("a due intent is leased to one runner at a time, and settled with its event only from the leased state", () =>
    Effect.gen(function* () {
      const ledger = yield* PaymentLedger
      const store = yield* IssuedTypedDataStore
      yield* issue("8")
      const due = payment({ pay_at_time: 100 })
      const later = payment({ pay_at_time: 10_000 })
      const eight = yield* store.claim("8", Date.now())
      yield* ledger.recordExecution({
        salt: "8",
        claimToken: eight.claimToken,
        signature: "0x",
        result: { transaction: "0x1", payments: [] },
        payments: [due, later],
        events: []
      })
      const now = Date.now()
      const leases = yield* Effect.all(
        ["a", "b", "c"].map((worker) =>
          ledger.leaseDueIntent({ now: 5000, nowMillis: now, worker, leaseUntil: now + 60_000 })
        ),
        { concurrency: "unbounded" }
      )
      const leased = leases.filter((p) => p !== undefined)
      assert.strictEqual(leased.length, 1)
      assert.strictEqual(leased[0]?.nanoid, due.nanoid)
      assert.strictEqual(leased[0]?.state, "scheduled")
      const settled = yield* ledger.settle(due.nanoid, "scheduled", "complete", { process_transaction: "0x2" }, [
        event(10)
      ])
      assert.strictEqual(settled.state, "complete")
      const again = yield* Effect.exit(ledger.settle(due.nanoid, "scheduled", "complete", {}, [event(11)]))
      assert.isTrue(Exit.isFailure(again))
      const outbox = yield* EventOutbox
      assert.isUndefined(yield* outbox.findById(event(11).id))
      // An expired lease lets another runner take the intent again.
      const stuck = payment({ pay_at_time: 100 })
      yield* issue("9")
      const nine = yield* store.claim("9", Date.now())
      yield* ledger.recordExecution({
        salt: "9",
        claimToken: nine.claimToken,
        signature: "0x",
        result: { transaction: "0x3", payments: [] },
        payments: [stuck],
        events: []
      })
      yield* ledger.leaseDueIntent({ now: 5000, nowMillis: now, worker: "a", leaseUntil: now + 10 })
      const retaken = yield* ledger.leaseDueIntent({
        now: 5000,
        nowMillis: now + 20,
        worker: "b",
        leaseUntil: now + 60_000
      })
      assert.strictEqual(retaken?.nanoid, stuck.nanoid)
    }).pipe(Effect.provide(storage()))
  )

  it.live("the outbox ignores a second append of an event and leases each event to one worker until it expires", () =>
    Effect.gen(function* () {
      const outbox = yield* EventOutbox
      yield* outbox.append([event(20), event(21), event(22)])
      yield* outbox.append([event(20)])
      const now = Date.now()
      const [a, b] = yield* Effect.all(
        [
          outbox.claim({ now, limit: 2, worker: "a", leaseMillis: 1000 }),
          outbox.claim({ now, limit: 2, worker: "b", leaseMillis: 1000 })
        ],
        { concurrency: "unbounded" }
      )
      const ids = [...a, ...b].map((e) => e.id).sort()
      assert.deepStrictEqual(ids, [event(20).id, event(21).id, event(22).id])
      yield* outbox.markDispatched(event(20).id)
      const afterLease = yield* outbox.claim({ now: now + 2000, limit: 10, worker: "c", leaseMillis: 1000 })
      assert.deepStrictEqual(afterLease.map((e) => e.id).sort(), [event(21).id, event(22).id])
    }).pipe(Effect.provide(storage()))
  )
})
