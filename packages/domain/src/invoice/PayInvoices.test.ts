/**
 * Paying invoices on the run's anvil (issue 38): a `{invoice_nanoid}` entry pays the member what is left of it, and
 * the invoice is paid in the unit that records the payment; paying it again, or what another request holds, is refused
 * before anything moves; an intent holds the invoice until it runs.
 */
import { assert, layer } from "@effect/vitest"
import { Clock, Effect, Schema } from "effect"
import { chainLayer, onChainUseCases, seedChainTeam } from "../../test/ChainKit.ts"
import { flatInvoice, memberOf, timeInvoice } from "../../test/InvoiceKit.ts"
import { ChainGateway } from "../chain/ChainGateway.ts"
import { IssuedRequestStore } from "../eip712/IssuedRequestStore.ts"
import { signTypedDataBundle } from "../eip712/TypedDataSignature.ts"
import type { InvoiceId, TeamId } from "../Ids.ts"
import { cancelIntent } from "../payment/CancelIntent.ts"
import { executeSignedPayments } from "../payment/ExecuteSignedPayments.ts"
import * as IntentRunner from "../payment/IntentRunner.ts"
import { issuePayments } from "../payment/IssuePayments.ts"
import { PaymentItem } from "../payment/PaymentItem.ts"
import { paymentItemsOf } from "../payment/PaymentItems.ts"
import { PaymentLedger } from "../payment/PaymentLedger.ts"
import { paymentStateFilter } from "../payment/PaymentMachine.ts"
import { CreatePaymentsRequest, ExecutePaymentsRequest } from "../payment/PaymentRequests.ts"
import type { Caller } from "../user/Caller.ts"
import { userAccountOf } from "../user/UserAccount.ts"
import { UserRepository } from "../user/UserRepository.ts"
import { cancelInvoice } from "./CancelInvoice.ts"
import { createInvoice } from "./CreateInvoice.ts"
import { InvoiceRepository } from "./InvoiceRepository.ts"

/** A batch body paying `entries` (each `{invoice_nanoid, amount_cents?}`), now or as intents due at `payAt`. */
const invoicesBody = (team: TeamId, entries: ReadonlyArray<Record<string, unknown>>, payAt?: number) =>
  Schema.decodeUnknownSync(CreatePaymentsRequest)({
    from: team,
    to: entries,
    pay_now: payAt === undefined,
    ...(payAt === undefined ? {} : { pay_at_time: payAt })
  })

/** Issues and signs the batch as `admin`; answers the PUT body, to execute later. */
const signed = (admin: Caller, key: `0x${string}`, body: ReturnType<typeof invoicesBody>) =>
  Effect.gen(function* () {
    const bundle = yield* issuePayments(admin, body)
    const signature = yield* signTypedDataBundle(bundle, key)
    return Schema.decodeUnknownSync(ExecutePaymentsRequest)({
      ...Schema.encodeSync(CreatePaymentsRequest)(body),
      signer: admin.wallet,
      typed_data: bundle.typed_data,
      signature
    })
  })

const invoiceOf = (id: string) => InvoiceRepository.use((r) => r.findById(id as InvoiceId))

/** The svc account a member is paid into, and its balance. */
const memberBalance = (member: Caller) =>
  Effect.gen(function* () {
    const chain = yield* ChainGateway
    const user = yield* UserRepository.use((u) => u.findById(member.nanoid))
    const address = yield* userAccountOf(chain, user._tag === "Some" ? user.value : member)
    return yield* chain.balanceOf(address)
  })

layer(chainLayer, { timeout: 120_000, excludeTestServices: true })("paying invoices", (it) => {
  it.effect("pays what the invoice says to its author, paid with the transaction; paying it again is refused", () =>
    Effect.gen(function* () {
      const { team, signingAdmin, key, employee } = yield* seedChainTeam
      const invoice = yield* createInvoice(employee, timeInvoice(team, "E-1"))
      const before = yield* memberBalance(employee)
      const body = invoicesBody(team, [{ invoice_nanoid: invoice.nanoid }])
      const done = yield* executeSignedPayments(signingAdmin, yield* signed(signingAdmin, key, body))
      assert.strictEqual((yield* memberBalance(employee)) - before, 780_000_000n)
      const paid = yield* invoiceOf(invoice.nanoid)
      assert.deepStrictEqual([paid.state, paid.paid_cents, paid.hold], ["paid", 78_000, undefined])
      assert.strictEqual(paid.payments[0]?.transaction, done.result.transaction)
      assert.isAbove(paid.payments[0]?.block_number ?? 0, 0)
      const payments = yield* PaymentLedger.use((l) => l.list({ payer: team, states: paymentStateFilter.all }))
      const [item] = yield* paymentItemsOf(payments)
      Schema.decodeUnknownSync(PaymentItem)(item)
      assert.deepInclude(item?.invoice, {
        nanoid: invoice.nanoid,
        invoice_number: "E-1",
        invoice_status: "paid",
        amount_cents: 78_000,
        synthesized: false,
        type: "time_entry"
      })
      assert.strictEqual(item?.payment.invoice_nanoid, invoice.nanoid)
      // Again: refused naming it, before anything is issued (nothing for the wallet to sign).
      const held = (yield* IssuedRequestStore.use((s) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) => s.held(team, now))
      )).count
      const again = yield* Effect.flip(issuePayments(signingAdmin, body))
      assert.deepStrictEqual([again._tag, again.message], ["InvoiceNotPayable", `${invoice.nanoid} is paid already`])
      const after = yield* IssuedRequestStore.use((s) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) => s.held(team, now))
      )
      assert.strictEqual(after.count, held)
    }).pipe(Effect.provide(onChainUseCases))
  )

  it.effect("part of it, then the rest; more than is left, a closed invoice or another team's is refused by name", () =>
    Effect.gen(function* () {
      const { team, signingAdmin, key, employee } = yield* seedChainTeam
      const { nanoid } = yield* createInvoice(employee, flatInvoice(team, "E-2", 10_000))
      const pay = (entry: Record<string, unknown>) =>
        Effect.flatMap(signed(signingAdmin, key, invoicesBody(team, [entry])), (put) =>
          executeSignedPayments(signingAdmin, put)
        )
      yield* pay({ invoice_nanoid: nanoid, amount_cents: 4_000 })
      assert.deepStrictEqual(
        [(yield* invoiceOf(nanoid)).state, (yield* invoiceOf(nanoid)).paid_cents],
        ["partially_paid", 4_000]
      )
      const tooMuch = yield* Effect.flip(pay({ invoice_nanoid: nanoid, amount_cents: 6_001 }))
      assert.strictEqual(tooMuch.message, `${nanoid} has 6000 cents left to pay; the entry pays 6001`)
      yield* pay({ invoice_nanoid: nanoid })
      const paid = yield* invoiceOf(nanoid)
      assert.deepStrictEqual(
        [paid.state, paid.paid_cents, paid.payments.map((p) => p.amount_cents)],
        ["paid", 10_000, [4_000, 6_000]]
      )
      const canceled = yield* createInvoice(employee, flatInvoice(team, "E-3", 500))
      yield* cancelInvoice(employee, canceled.nanoid as InvoiceId)
      const closed = yield* Effect.flip(pay({ invoice_nanoid: canceled.nanoid }))
      assert.strictEqual(closed.message, `${canceled.nanoid} was canceled by the member who billed it`)
      const unknown = yield* Effect.flip(pay({ invoice_nanoid: "iv-000000000999" }))
      assert.strictEqual(unknown.message, `iv-000000000999 is not an invoice of team ${team}`)
    }).pipe(Effect.provide(onChainUseCases))
  )

  it.effect("of two requests signed for one invoice, the first pays it; the second is refused before it is sent", () =>
    Effect.gen(function* () {
      const { team, signingAdmin, key, employee, account } = yield* seedChainTeam
      const { nanoid } = yield* createInvoice(employee, flatInvoice(team, "E-4", 2_500))
      const body = invoicesBody(team, [{ invoice_nanoid: nanoid }])
      const first = yield* signed(signingAdmin, key, body)
      const second = yield* signed(signingAdmin, key, body)
      yield* executeSignedPayments(signingAdmin, first)
      const balance = yield* ChainGateway.use((chain) => chain.balanceOf(account))
      const refused = yield* Effect.flip(executeSignedPayments(signingAdmin, second))
      assert.deepStrictEqual([refused._tag, refused.message], ["InvoiceNotPayable", `${nanoid} is paid already`])
      assert.strictEqual(yield* ChainGateway.use((chain) => chain.balanceOf(account)), balance)
      // Its claim is let go: nothing was sent, and the request stands as issued.
      const outcome = yield* PaymentLedger.use((l) => l.outcome(second.typed_data.salt))
      assert.strictEqual(outcome.state, "issued")
    }).pipe(Effect.provide(onChainUseCases))
  )

  it.effect(
    "an intent paying an invoice holds it from others until it runs; canceled, it lets it go; run, it pays",
    () =>
      Effect.gen(function* () {
        const { team, signingAdmin, key, employee } = yield* seedChainTeam
        const contractor = yield* memberOf(team, 201, "team_contractor")
        const first = yield* createInvoice(employee, flatInvoice(team, "E-5", 1_500))
        const second = yield* createInvoice(contractor, flatInvoice(team, "C-1", 1_700))
        // Due at once: the runner, not running here, pays it only when the test asks it to.
        const payAt = Math.floor(Date.now() / 1000)
        const register = (id: string) =>
          Effect.flatMap(signed(signingAdmin, key, invoicesBody(team, [{ invoice_nanoid: id }], payAt)), (put) =>
            executeSignedPayments(signingAdmin, put)
          )
        // Signed now, executed once the intent holds the invoice: refused, naming it.
        const now = yield* signed(signingAdmin, key, invoicesBody(team, [{ invoice_nanoid: first.nanoid }]))
        yield* register(first.nanoid)
        yield* register(second.nanoid)
        const taken = yield* Effect.flip(executeSignedPayments(signingAdmin, now))
        assert.strictEqual(
          taken.message,
          `${first.nanoid} is being paid by another payment (under way, or registered for later)`
        )
        const held = yield* Effect.flip(cancelInvoice(employee, first.nanoid as InvoiceId))
        assert.include(held.message, "A payment of the invoice is under way")
        const intents = yield* PaymentLedger.use((l) => l.list({ payer: team, states: ["intent"] }))
        const ofSecond = intents.find((p) => p.invoice_nanoid === second.nanoid)
        yield* cancelIntent(signingAdmin, ofSecond?.nanoid ?? ("pa-none" as never))
        assert.strictEqual((yield* cancelInvoice(contractor, second.nanoid as InvoiceId)).invoice_status, "canceled")
        const runs = yield* IntentRunner.runDueIntents()
        assert.deepStrictEqual(
          runs.map((r) => r.run),
          ["complete"]
        )
        const paid = yield* invoiceOf(first.nanoid)
        assert.deepStrictEqual([paid.state, paid.paid_cents, paid.hold], ["paid", 1_500, undefined])
        assert.match(paid.payments[0]?.transaction ?? "", /^0x[0-9a-f]{64}$/)
      }).pipe(Effect.provide(onChainUseCases))
  )
})
