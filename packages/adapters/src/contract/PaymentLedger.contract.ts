/**
 * The contract of `PaymentLedger`: only the holder of a request's current claim token notes, drops or records, all or
 * nothing (in a unit of work with its events), and a holder whose claim was taken over changes nothing; due intents
 * leased to one runner at a time under a new fencing token, moved only from the expected state, only by the current
 * token and only as the payment machine allows; the query's filters and order; executed requests listed.
 */
import { assert, describe, it } from "@effect/vitest"
import type { Email } from "@svc/domain/Email"
import { IssuedRequestStore } from "@svc/domain/eip712"
import { EventOutbox } from "@svc/domain/event"
import type { FencingToken } from "@svc/domain/Lease"
import { type Payment, PaymentLedger, PaymentMachine } from "@svc/domain/payment"
import { withEvents } from "@svc/domain/UnitOfWork"
import { Effect, Exit, Option } from "effect"
import { event, issued, payment, paymentId, teamId, userId } from "./Fixtures.ts"
import type { StorageUnderTest } from "./Storage.ts"

/** How long the suite's claims hold. */
const leaseMillis = 20_000

/** Claims `salt` at `now` for `leaseMillis`, signed `0xsig<salt>`. */
const claimAt = (salt: string, now: number) =>
  IssuedRequestStore.use((store) => store.claim(salt, { now, until: now + leaseMillis, signature: `0xsig${salt}` }))

/** Notes `transaction` in flight for `salt`'s holder of `token`, listing `payments`. */
const note = (salt: string, token: FencingToken, transaction: string, payments: ReadonlyArray<Payment>) =>
  PaymentLedger.use((ledger) => ledger.noteInFlight({ salt, token, result: { transaction, payments: [] }, payments }))

/** A token no holder has. */
const stranger = 987_654_321 as FencingToken

/** Every payment state, for listing all. */
const allStates = PaymentMachine.states

/** Issues `salt`, claims it at `now` and records `payments` (and `events`) with transaction `transaction`. */
const execute = (
  salt: string,
  payments: ReadonlyArray<Payment>,
  options: { readonly now?: number; readonly transaction?: string; readonly events?: ReturnType<typeof event>[] } = {}
) =>
  Effect.gen(function* () {
    const store = yield* IssuedRequestStore
    const ledger = yield* PaymentLedger
    yield* store.issue(issued(salt))
    const claim = yield* claimAt(salt, options.now ?? Date.now())
    const recorded = yield* withEvents(
      ledger.recordExecution({
        salt,
        token: claim.claim.token,
        result: { transaction: options.transaction ?? `0xtx${salt}`, payments: [] },
        payments
      }),
      (recorded) => (recorded ? (options.events ?? []) : [])
    )
    assert.isTrue(recorded)
  })

/** Registers the suite for `storage`. */
export const paymentLedgerContract = (storage: StorageUnderTest) =>
  describe(`PaymentLedger (${storage.name})`, () => {
    it.live("its holder notes its transaction in flight, the latest replacing the first; the outcome says so", () =>
      Effect.gen(function* () {
        const store = yield* IssuedRequestStore
        const ledger = yield* PaymentLedger
        yield* store.issue(issued("7"))
        assert.deepStrictEqual(yield* ledger.outcome("7"), { state: "issued" })
        assert.strictEqual((yield* Effect.flip(ledger.outcome("8")))._tag, "TypedDataNotFound")
        const now = Date.now()
        const first = yield* claimAt("7", now)
        assert.deepStrictEqual(yield* ledger.outcome("7"), { state: "executing", leaseUntil: now + leaseMillis })
        // Noted by its holder: the outcome says so while that holder holds the claim, and the payments are listed as
        // noted, the latest version replacing the first; a stranger's token notes nothing.
        const inFlight = { transaction: "0xsent", payments: [] }
        const processing = (transaction: string) =>
          [1, 2].map((n) => payment(n, { salt: "7", state: "processing", creation_transaction: transaction }))
        assert.isTrue(yield* note("7", first.claim.token, "0xfirst", []))
        assert.isTrue(yield* note("7", first.claim.token, "0xsent", processing("0xfirst")))
        assert.isTrue(yield* note("7", first.claim.token, "0xsent", processing("0xsent")))
        assert.isFalse(yield* note("7", stranger, "0xother", processing("0xother")))
        assert.deepStrictEqual(yield* ledger.outcome("7"), {
          state: "executing",
          leaseUntil: now + leaseMillis,
          inFlight
        })
        assert.deepStrictEqual(
          yield* ledger.list({ states: ["processing"], payer: teamId(1) }),
          processing("0xsent").reverse()
        )
        // Taken over: the earlier holder's transaction is no longer what the request has in flight, and the earlier
        // holder notes nothing more.
        const later = now + leaseMillis
        const taken = Option.getOrThrow(yield* store.takeOver("7", later, later + leaseMillis))
        assert.deepStrictEqual(yield* ledger.outcome("7"), { state: "executing", leaseUntil: later + leaseMillis })
        assert.isFalse(yield* note("7", first.claim.token, "0xsent", processing("0xsent")))
        // The new holder records: the payments replace those noted in flight, with the events, in one step.
        const payments = [payment(1, { salt: "7" }), payment(2, { salt: "7" })]
        assert.isTrue(
          yield* withEvents(
            ledger.recordExecution({
              salt: "7",
              token: taken.claim.token,
              result: { transaction: "0xabc", payments: [] },
              payments
            }),
            (recorded) => (recorded ? [event(1), event(2)] : [])
          )
        )
        assert.deepStrictEqual(yield* ledger.outcome("7"), {
          state: "executed",
          result: { transaction: "0xabc", payments: [] }
        })
        assert.deepStrictEqual(
          yield* ledger.list({ states: ["intent", "processing"], payer: teamId(1) }),
          [...payments].reverse()
        )
        const outbox = yield* EventOutbox
        assert.deepStrictEqual(yield* outbox.findById(event(1).id), { ...event(1), sequence: 1 })
        assert.isDefined(yield* outbox.findById(event(2).id))
        // Executed: nothing takes it over any more.
        assert.isTrue(Option.isNone(yield* store.takeOver("7", later * 2, later * 2 + 1)))
      }).pipe(Effect.provide(storage.layer()))
    )

    it.live(
      "payments noted in flight go when their holder drops them, and only then; a record outlives a late note",
      () =>
        Effect.gen(function* () {
          const store = yield* IssuedRequestStore
          const ledger = yield* PaymentLedger
          yield* store.issue(issued("9"))
          const claim = yield* claimAt("9", Date.now())
          const noted = [payment(1, { salt: "9", state: "processing", creation_transaction: "0xsent" })]
          assert.isTrue(yield* note("9", claim.claim.token, "0xsent", noted))
          assert.isFalse(yield* ledger.dropInFlight("9", stranger))
          assert.deepStrictEqual(yield* ledger.list({ states: ["processing"] }), noted)
          assert.isTrue(yield* ledger.dropInFlight("9", claim.claim.token))
          assert.deepStrictEqual(yield* ledger.list({ states: allStates }), [])
          assert.isTrue(yield* store.release("9", claim.claim.token))

          // Claimed again and recorded: a note that comes after the record changes nothing.
          const again = yield* claimAt("9", Date.now())
          const recorded = [payment(1, { salt: "9", state: "complete", creation_transaction: "0xmined" })]
          assert.isTrue(
            yield* ledger.recordExecution({
              salt: "9",
              token: again.claim.token,
              result: { transaction: "0xmined", payments: [] },
              payments: recorded
            })
          )
          assert.isFalse(yield* note("9", again.claim.token, "0xlate", noted))
          assert.isFalse(yield* ledger.dropInFlight("9", again.claim.token))
          assert.deepStrictEqual(yield* ledger.list({ states: allStates }), recorded)
        }).pipe(Effect.provide(storage.layer()))
    )

    it.live("a holder whose claim was taken over can neither release it nor record its execution", () =>
      Effect.gen(function* () {
        const store = yield* IssuedRequestStore
        const ledger = yield* PaymentLedger
        yield* store.issue(issued("11"))
        const now = Date.now()
        const stale = yield* claimAt("11", now)
        const later = now + leaseMillis + 1
        const taken = Option.getOrThrow(yield* store.takeOver("11", later, later + leaseMillis))
        const token = taken.claim.token
        assert.isAbove(token, stale.claim.token)
        // The slow first holder meets a refusal and releases: the new holder's claim stands.
        assert.isFalse(yield* store.release("11", stale.claim.token))
        assert.deepStrictEqual(yield* ledger.outcome("11"), { state: "executing", leaseUntil: later + leaseMillis })
        assert.strictEqual((yield* Effect.flip(claimAt("11", later)))._tag, "AlreadyClaimed")
        // Nor may it record: nothing of its record is written.
        assert.isFalse(
          yield* withEvents(
            ledger.recordExecution({
              salt: "11",
              token: stale.claim.token,
              result: { transaction: "0xold", payments: [] },
              payments: [payment(30, { salt: "11" })]
            }),
            (recorded) => (recorded ? [event(30)] : [])
          )
        )
        assert.strictEqual((yield* ledger.outcome("11")).state, "executing")
        assert.deepStrictEqual(yield* ledger.list({ states: ["intent"], payer: teamId(1) }), [])
        assert.isUndefined(yield* (yield* EventOutbox).findById(event(30).id))
        // The new holder records.
        const kept = payment(31, { salt: "11" })
        assert.isTrue(
          yield* withEvents(
            ledger.recordExecution({
              salt: "11",
              token,
              result: { transaction: "0xnew", payments: [] },
              payments: [kept]
            }),
            (recorded) => (recorded ? [event(31)] : [])
          )
        )
        assert.deepStrictEqual(yield* ledger.outcome("11"), {
          state: "executed",
          result: { transaction: "0xnew", payments: [] }
        })
        assert.deepStrictEqual(yield* ledger.list({ states: ["intent"], payer: teamId(1) }), [kept])
        // Neither a second record nor a release after it changes anything.
        assert.isFalse(
          yield* ledger.recordExecution({
            salt: "11",
            token,
            result: { transaction: "0xagain", payments: [] },
            payments: [payment(32, { salt: "11" })]
          })
        )
        assert.isFalse(yield* store.release("11", token))
        assert.deepStrictEqual(yield* ledger.outcome("11"), {
          state: "executed",
          result: { transaction: "0xnew", payments: [] }
        })
      }).pipe(Effect.provide(storage.layer()))
    )

    it.live("a record that fails part way writes nothing of itself, and the holder may record again", () =>
      Effect.gen(function* () {
        const store = yield* IssuedRequestStore
        const ledger = yield* PaymentLedger
        const outbox = yield* EventOutbox
        yield* execute("20", [payment(1, { salt: "20" })])
        yield* store.issue(issued("21"))
        const claim = yield* claimAt("21", Date.now())
        const record = (payments: ReadonlyArray<Payment>) =>
          withEvents(
            ledger.recordExecution({
              salt: "21",
              token: claim.claim.token,
              result: { transaction: "0x21", payments: [] },
              payments
            }),
            (recorded) => (recorded ? [event(40)] : [])
          )
        // Its second payment's id is taken: the whole step fails.
        const failed = yield* Effect.exit(record([payment(2, { salt: "21" }), payment(1, { salt: "21" })]))
        assert.isTrue(Exit.isFailure(failed))
        assert.strictEqual((yield* ledger.outcome("21")).state, "executing")
        assert.deepStrictEqual(
          (yield* ledger.list({ states: ["intent"] })).map((p) => p.salt),
          ["20"]
        )
        assert.isUndefined(yield* outbox.findById(event(40).id))
        assert.isTrue(yield* record([payment(2, { salt: "21" })]))
        assert.strictEqual((yield* ledger.outcome("21")).state, "executed")
        assert.isDefined(yield* outbox.findById(event(40).id))
      }).pipe(Effect.provide(storage.layer()))
    )

    it.live(
      "a due intent is leased to one runner at a time, and settled with its event only from the leased state",
      () =>
        Effect.gen(function* () {
          const ledger = yield* PaymentLedger
          const outbox = yield* EventOutbox
          const due = payment(1, { pay_at_time: 100 })
          const dueLater = payment(2, { pay_at_time: 200 })
          const notYet = payment(3, { pay_at_time: 10_000 })
          yield* execute("8", [notYet, dueLater, due])
          const now = Date.now()
          const leases = yield* Effect.all(
            ["a", "b", "c"].map(() => ledger.leaseDueIntent({ now: 150, nowMillis: now, leaseUntil: now + 60_000 })),
            { concurrency: "unbounded" }
          )
          const leased = leases.filter((p) => p !== undefined)
          assert.strictEqual(leased.length, 1)
          assert.deepStrictEqual(leased[0]?.payment, {
            ...due,
            state: "scheduled",
            updated_at: "1970-01-01T00:02:30.000Z"
          })
          const token = leased[0]?.lease.token as FencingToken
          // The oldest due first; an intent not yet due is never leased.
          const next = yield* ledger.leaseDueIntent({ now: 5000, nowMillis: now, leaseUntil: now + 60_000 })
          assert.strictEqual(next?.payment.nanoid, dueLater.nanoid)
          assert.isUndefined(yield* ledger.leaseDueIntent({ now: 5000, nowMillis: now, leaseUntil: now + 60_000 }))

          // Moved only by the runner's current token, one move of the table at a time.
          const notTheRunner = yield* Effect.flip(
            ledger.transition(due.nanoid, "scheduled", "processing", {}, stranger)
          )
          assert.strictEqual(notTheRunner._tag, "StaleState")
          const settled = yield* withEvents(
            Effect.andThen(
              ledger.transition(due.nanoid, "scheduled", "processing", {}, token),
              ledger.transition(
                due.nanoid,
                "processing",
                "complete",
                { process_transaction: "0x2", updated_at: "2026-03-01T00:00:00.000Z" },
                token
              )
            ),
            () => [event(10)]
          )
          assert.deepStrictEqual(settled, {
            ...due,
            state: "complete",
            process_transaction: "0x2",
            updated_at: "2026-03-01T00:00:00.000Z"
          })
          assert.deepStrictEqual(yield* outbox.findById(event(10).id), { ...event(10), sequence: 1 })
          const stale = yield* Effect.flip(
            withEvents(ledger.transition(due.nanoid, "processing", "complete", {}), () => [event(11)])
          )
          assert.deepStrictEqual([stale._tag, stale.errorCode], ["StaleState", "INVALID_STATE_TRANSITION"])
          assert.isUndefined(yield* outbox.findById(event(11).id))
          const missing = yield* Effect.flip(ledger.transition(paymentId(99), "processing", "complete", {}))
          assert.deepStrictEqual([missing._tag, missing.errorCode], ["PaymentNotFound", "PAYMENT_NOT_FOUND"])
          assert.deepStrictEqual(
            (yield* ledger.list({ states: ["complete"] })).map((p) => p.nanoid),
            [due.nanoid]
          )

          // An expired lease lets another runner take the intent again; a settled one never comes back.
          assert.isUndefined(
            yield* ledger.leaseDueIntent({ now: 5000, nowMillis: now + 59_999, leaseUntil: now + 120_000 })
          )
          const retaken = yield* ledger.leaseDueIntent({
            now: 5000,
            nowMillis: now + 60_000,
            leaseUntil: now + 120_000
          })
          assert.strictEqual(retaken?.payment.nanoid, dueLater.nanoid)
          assert.strictEqual(retaken?.payment.state, "scheduled")
          assert.isAbove(retaken?.lease.token ?? 0, next?.lease.token ?? 0)
          // The first runner of it, paused past its lease, moves nothing.
          const late = yield* Effect.flip(
            ledger.transition(dueLater.nanoid, "scheduled", "processing", {}, next?.lease.token)
          )
          assert.strictEqual(late._tag, "StaleState")
          // A move the payment machine does not allow is a defect, whatever the store holds.
          const illegal = yield* Effect.exit(ledger.transition(dueLater.nanoid, "scheduled", "complete", {}))
          assert.isTrue(Exit.isFailure(illegal) && !illegal.cause.reasons.some((r) => r._tag === "Fail"))
        }).pipe(Effect.provide(storage.layer()))
    )

    it.live("the query filters by state, payer, recipients and creation time (inclusive), newest first", () =>
      Effect.gen(function* () {
        const ledger = yield* PaymentLedger
        const at = (second: number) => `2026-01-01T00:00:${String(second).padStart(2, "0")}.000Z`
        const unix = (second: number) => Date.parse(at(second)) / 1000
        const a = payment(1, { created_at: at(10), state: "complete" })
        const b = payment(2, { created_at: at(20), recipient_nanoid: userId(3) })
        const c = payment(3, { created_at: at(20), team_nanoid: teamId(2), payer_nanoid: userId(4) })
        const d = payment(4, { created_at: at(30), team_nanoid: teamId(2), recipient_nanoid: userId(3) })
        const { recipient_nanoid: _none, ...toEmail } = payment(5, {
          created_at: at(40),
          recipient_email: "x@y.io" as Email
        })
        yield* execute("1", [a, b, c, d, toEmail])
        const ids = (payments: ReadonlyArray<Payment>) => payments.map((p) => Number(p.nanoid.slice(3)))
        const all = ["intent", "complete"] as const
        assert.deepStrictEqual(ids(yield* ledger.list({ states: all })), [5, 4, 3, 2, 1])
        assert.deepStrictEqual(ids(yield* ledger.list({ states: ["intent"] })), [5, 4, 3, 2])
        assert.deepStrictEqual(ids(yield* ledger.list({ states: [] })), [])
        assert.deepStrictEqual(ids(yield* ledger.list({ states: all, payer: teamId(1) })), [5, 2, 1])
        assert.deepStrictEqual(ids(yield* ledger.list({ states: all, notPayer: teamId(1) })), [4, 3])
        assert.deepStrictEqual(ids(yield* ledger.list({ states: all, recipients: [userId(3)] })), [4, 2])
        assert.deepStrictEqual(
          ids(yield* ledger.list({ states: all, recipients: [userId(2), userId(3)] })),
          [4, 3, 2, 1]
        )
        assert.deepStrictEqual(ids(yield* ledger.list({ states: all, recipients: [] })), [])
        assert.deepStrictEqual(ids(yield* ledger.list({ states: all, payer: teamId(2), recipients: [userId(3)] })), [4])
        assert.deepStrictEqual(
          ids(yield* ledger.list({ states: all, createdFrom: unix(20), createdTo: unix(30) })),
          [4, 3, 2]
        )
        assert.deepStrictEqual(ids(yield* ledger.list({ states: all, createdFrom: unix(31) })), [5])
        assert.deepStrictEqual(ids(yield* ledger.list({ states: all, createdTo: unix(19) })), [1])
        assert.deepStrictEqual((yield* ledger.list({ states: all, payer: teamId(1) }))[0], toEmail)
        // By signer (`payer_nanoid`), and one by its nanoid.
        assert.deepStrictEqual(ids(yield* ledger.list({ states: all, signer: userId(4) })), [3])
        assert.deepStrictEqual(ids(yield* ledger.list({ states: all, signer: userId(1) })), [5, 4, 2, 1])
        assert.deepStrictEqual(ids(yield* ledger.list({ states: all, signer: userId(99) })), [])
        assert.deepStrictEqual(yield* ledger.find(b.nanoid), b)
        assert.isUndefined(yield* ledger.find(payment(77).nanoid))
      }).pipe(Effect.provide(storage.layer()))
    )

    it.live("pages follow the order (time, then nanoid, descending) from a place, at most `limit` each", () =>
      Effect.gen(function* () {
        const ledger = yield* PaymentLedger
        const at = (second: number) => `2026-01-01T00:00:${String(second).padStart(2, "0")}.000Z`
        // Three payments share one creation time: the nanoid breaks the tie, so no page repeats or skips one.
        const payments = [
          payment(1, { created_at: at(10) }),
          payment(2, { created_at: at(20) }),
          payment(3, { created_at: at(20) }),
          payment(4, { created_at: at(20) }),
          payment(5, { created_at: at(30), team_nanoid: teamId(2) }),
          payment(6, { created_at: at(40) })
        ]
        yield* execute("1", payments)
        const ids = (list: ReadonlyArray<Payment>) => list.map((p) => Number(p.nanoid.slice(3)))
        const query = { states: ["intent"] as const, payer: teamId(1) }
        assert.deepStrictEqual(ids(yield* ledger.list({ ...query, limit: 2 })), [6, 4])
        const pages: Array<Array<number>> = []
        let after: { created_at: string; nanoid: string } | undefined
        for (let round = 0; round < 5; round++) {
          const page = yield* ledger.list({ ...query, limit: 2, ...(after === undefined ? {} : { after }) })
          if (page.length === 0) break
          pages.push(ids(page))
          const last = page.at(-1) as Payment
          after = { created_at: last.created_at, nanoid: last.nanoid }
        }
        assert.deepStrictEqual(pages, [[6, 4], [3, 2], [1]])
        assert.deepStrictEqual(
          ids(yield* ledger.list({ ...query, after: { created_at: at(20), nanoid: paymentId(3) } })),
          [2, 1]
        )
      }).pipe(Effect.provide(storage.layer()))
    )

    it.live("`intentsDueAfter` also selects intents whose pay_at_time is later, beside the states asked", () =>
      Effect.gen(function* () {
        const ledger = yield* PaymentLedger
        yield* execute("1", [
          payment(1, { pay_at_time: 500 }),
          payment(2, { pay_at_time: 1500 }),
          payment(3, { state: "scheduled", pay_at_time: 100 }),
          payment(4, { state: "complete", pay_at_time: 2000 })
        ])
        const ids = (list: ReadonlyArray<Payment>) => list.map((p) => Number(p.nanoid.slice(3)))
        assert.deepStrictEqual(ids(yield* ledger.list({ states: ["scheduled", "processing"] })), [3])
        assert.deepStrictEqual(
          ids(yield* ledger.list({ states: ["scheduled", "processing"], intentsDueAfter: 1000 })),
          [3, 2]
        )
        assert.deepStrictEqual(ids(yield* ledger.list({ states: ["scheduled"], intentsDueAfter: 1500 })), [3])
      }).pipe(Effect.provide(storage.layer()))
    )

    it.live("executed requests are listed oldest first with what they executed and their claim's signature", () =>
      Effect.gen(function* () {
        const store = yield* IssuedRequestStore
        const ledger = yield* PaymentLedger
        yield* execute("31", [payment(1, { salt: "31" })], { now: 1000 })
        yield* execute("33", [payment(2, { salt: "33" })], { now: 3000 })
        yield* execute("32", [], { now: 2000 })
        // Issued, or claimed but not recorded: not executed.
        yield* store.issue(issued("34"))
        yield* store.issue(issued("35"))
        yield* claimAt("35", 4000)
        const since = yield* ledger.executedSince(2000)
        assert.deepStrictEqual(
          since.map((r) => [r.salt, r.claimedAt, r.signature, r.result.transaction]),
          [
            ["32", 2000, "0xsig32", "0xtx32"],
            ["33", 3000, "0xsig33", "0xtx33"]
          ]
        )
        assert.deepStrictEqual(since[1]?.issued, { ...issued("33"), claimedAt: 3000 })
        assert.deepStrictEqual(
          (yield* ledger.executedSince(0)).map((r) => r.salt),
          ["31", "32", "33"]
        )
        assert.deepStrictEqual(yield* ledger.executedSince(3001), [])
      }).pipe(Effect.provide(storage.layer()))
    )
  })
