/**
 * The contract of `InvoiceRepository`: a member's number is theirs once per team; a transition applies only at the
 * state and revision it names; in a unit of work, what the use case writes with an invoice (its events, the payment
 * that pays it) commits with it, or nothing at all.
 */
import { assert, describe, it } from "@effect/vitest"
import { EventOutbox } from "@svc/domain/event"
import type { PayScheduleId } from "@svc/domain/Ids"
import { InvoiceRepository } from "@svc/domain/invoice"
import { UnitOfWork, withEvents } from "@svc/domain/UnitOfWork"
import { Effect, Exit } from "effect"
import { event, invoice, invoiceId, paymentId, teamId, userId } from "./Fixtures.ts"
import type { StorageUnderTest } from "./Storage.ts"

const inUnit = <A, E, R>(effect: Effect.Effect<A, E, R>) => UnitOfWork.use((unit) => unit.run(effect))

const pending = EventOutbox.use((outbox) =>
  outbox.claim({ now: Number.MAX_SAFE_INTEGER - 1, limit: 100, leaseMillis: 1 })
)

/** Registers the suite for `storage`. */
export const invoiceRepositoryContract = (storage: StorageUnderTest) =>
  describe(`InvoiceRepository (${storage.name})`, () => {
    it.live("creates and finds invoices; a member's number is theirs once per team, with nothing else written", () =>
      Effect.gen(function* () {
        const invoices = yield* InvoiceRepository
        yield* withEvents(invoices.create(invoice(1)), () => [event(1, "invoice.created")])
        assert.deepStrictEqual(yield* invoices.findById(invoiceId(1)), invoice(1))
        assert.strictEqual((yield* Effect.flip(invoices.findById(invoiceId(9))))._tag, "InvoiceNotFound")
        // The same number by another member, or to another team, is another invoice.
        yield* invoices.create(invoice(2, { invoice_number: "2026-1", recipient_nanoid: userId(3) }))
        yield* invoices.create(invoice(3, { invoice_number: "2026-1", team_nanoid: teamId(2) }))
        const taken = yield* Effect.flip(
          withEvents(invoices.create(invoice(4, { invoice_number: "2026-1" })), () => [event(4, "invoice.created")])
        )
        assert.strictEqual(taken._tag, "InvoiceNumberTaken")
        assert.strictEqual((yield* Effect.flip(invoices.findById(invoiceId(4))))._tag, "InvoiceNotFound")
        assert.deepStrictEqual(
          (yield* pending).map((e) => e.event.id),
          [event(1).id]
        )
        assert.deepStrictEqual(
          (yield* invoices.findByIds([invoiceId(3), invoiceId(9), invoiceId(1)])).map((i) => i.nanoid).sort(),
          [invoiceId(1), invoiceId(3)]
        )
        assert.deepStrictEqual(yield* invoices.findByIds([]), [])
      }).pipe(Effect.provide(storage.layer()))
    )

    it.live("lists a team's invoices newest first, by member and state, a page after a place", () =>
      Effect.gen(function* () {
        const invoices = yield* InvoiceRepository
        for (const n of [1, 2, 3, 4]) {
          yield* invoices.create(
            invoice(n, {
              ...(n === 3 ? { recipient_nanoid: userId(3) } : {}),
              ...(n === 4 ? { state: "paid" as const } : {})
            })
          )
        }
        // Two at the same instant are ordered by nanoid.
        yield* invoices.create(invoice(5, { created_at: invoice(4).created_at }))
        yield* invoices.create(invoice(6, { team_nanoid: teamId(2) }))
        const ids = (query: Parameters<typeof invoices.list>[0]) =>
          Effect.map(invoices.list(query), (list) => list.map((i) => i.nanoid))
        const team = teamId(1)
        assert.deepStrictEqual(yield* ids({ team, states: [], limit: 10 }), [5, 4, 3, 2, 1].map(invoiceId))
        assert.deepStrictEqual(
          yield* ids({ team, recipient: userId(2), states: ["submitted"], limit: 10 }),
          [5, 2, 1].map(invoiceId)
        )
        assert.deepStrictEqual(yield* ids({ team, states: ["paid", "rejected"], limit: 10 }), [invoiceId(4)])
        const after = { created_at: invoice(4).created_at, nanoid: invoiceId(5) }
        assert.deepStrictEqual(yield* ids({ team, states: [], after, limit: 2 }), [invoiceId(4), invoiceId(3)])
        assert.deepStrictEqual(yield* ids({ team: teamId(3), states: [], limit: 10 }), [])
      }).pipe(Effect.provide(storage.layer()))
    )

    it.live(
      "a transition is a move of the table, applied only at the state and revision it names; holds come and go",
      () =>
        Effect.gen(function* () {
          const invoices = yield* InvoiceRepository
          yield* invoices.create(invoice(1))
          const hold = { salt: "7", payment_nanoid: paymentId(7) }
          const held = yield* invoices.transition(invoiceId(1), "submitted", "submitted", {
            revision: 0,
            patch: { hold, updated_at: "2026-02-01T00:00:00.000Z" }
          })
          assert.deepStrictEqual(held, { ...invoice(1), hold, revision: 1, updated_at: "2026-02-01T00:00:00.000Z" })
          assert.deepStrictEqual(yield* invoices.findById(invoiceId(1)), held)
          // A write decided from revision 0 (another holder's) is refused, and changes nothing.
          const stale = yield* Effect.flip(
            invoices.transition(invoiceId(1), "submitted", "canceled", { revision: 0, patch: {} })
          )
          assert.strictEqual(stale._tag, "StaleState")
          const wrongState = yield* Effect.flip(
            invoices.transition(invoiceId(1), "partially_paid", "paid", { revision: 1, patch: {} })
          )
          assert.strictEqual(wrongState._tag, "StaleState")
          // A move the machine's table lacks is a defect, whatever is stored.
          const outside = yield* Effect.exit(
            invoices.transition(invoiceId(1), "paid", "submitted", { revision: 1, patch: { paid_cents: 1 } })
          )
          assert.isTrue(Exit.hasDies(outside))
          assert.deepStrictEqual(yield* invoices.findById(invoiceId(1)), held)
          const paid = {
            payment_nanoid: paymentId(7),
            amount_cents: 4000,
            transaction: `0x${"ab".repeat(32)}`,
            block_number: 12,
            paid_at: "2026-02-02T00:00:00.000Z"
          }
          const part = yield* invoices.transition(invoiceId(1), "submitted", "partially_paid", {
            revision: 1,
            patch: { hold: null, paid_cents: 4000, payments: [paid] }
          })
          assert.isUndefined(part.hold)
          assert.deepStrictEqual(yield* invoices.findById(invoiceId(1)), part)
          assert.deepStrictEqual(
            [part.state, part.revision, part.paid_cents, part.payments],
            ["partially_paid", 2, 4000, [paid]]
          )
          // A pay schedule's hold (decision 0117) is kept as written, and told from a payment's.
          const scheduleHold = { salt: "8", schedule_nanoid: "ps-000000000008" as PayScheduleId }
          const scheduled = yield* invoices.transition(invoiceId(1), "partially_paid", "partially_paid", {
            revision: 2,
            patch: { hold: scheduleHold }
          })
          assert.deepStrictEqual(scheduled.hold, scheduleHold)
          assert.deepStrictEqual(yield* invoices.findById(invoiceId(1)), scheduled)
          const missing = yield* Effect.flip(
            invoices.transition(invoiceId(9), "submitted", "canceled", { revision: 0, patch: {} })
          )
          assert.strictEqual(missing._tag, "InvoiceNotFound")
        }).pipe(Effect.provide(storage.layer()))
    )

    it.live("an invoice's change and what its unit writes with it commit together, or neither when it dies", () =>
      Effect.gen(function* () {
        const invoices = yield* InvoiceRepository
        yield* invoices.create(invoice(1))
        const record = (then: Effect.Effect<void>) =>
          inUnit(
            Effect.gen(function* () {
              yield* invoices.transition(invoiceId(1), "submitted", "paid", {
                revision: 0,
                patch: { paid_cents: 10_000 }
              })
              yield* EventOutbox.use((outbox) => outbox.append([event(1, "payment.sent")]))
              yield* then
            })
          )
        const died = yield* Effect.exit(record(Effect.die(new Error("killed between the payment and the invoice"))))
        assert.isTrue(Exit.hasDies(died))
        assert.strictEqual((yield* invoices.findById(invoiceId(1))).state, "submitted")
        assert.deepStrictEqual(yield* pending, [])
        yield* record(Effect.void)
        assert.strictEqual((yield* invoices.findById(invoiceId(1))).state, "paid")
        assert.deepStrictEqual(
          (yield* pending).map((e) => e.event.id),
          [event(1).id]
        )
      }).pipe(Effect.provide(storage.layer()))
    )
  })
