/**
 * Issuing payment typed data (POST /v2/payments, POST /v2/payments/external_entity/instant): recipients resolved to
 * their payout addresses or svc accounts, entries built from the plan, and the bundle recorded with what execution
 * needs to record it.
 */
import { Array as Arr, Clock, Effect, Metric, Schema } from "effect"
import { ChainGateway } from "../chain/ChainGateway.ts"
import type { Address } from "../Evm.ts"
import {
  type IssuedBatch,
  type IssuedInstant,
  IssuedRequestStore,
  IssuedRequestsLimit
} from "../eip712/IssuedRequestStore.ts"
import { makePaymentsTypedData, makePaymentTypedData } from "../eip712/TypedDataBuilder.ts"
import { IdGenerator, type InvoiceId, UserId } from "../Ids.ts"
import { invoicePayeeOf } from "../invoice/PayInvoices.ts"
import type { Membership } from "../membership/Membership.ts"
import { MemberBlocked } from "../membership/MembershipErrors.ts"
import { MembershipRepository } from "../membership/MembershipRepository.ts"
import { isPayable } from "../membership/Role.ts"
import { type Team, teamAccountOf } from "../team/Team.ts"
import type { Caller } from "../user/Caller.ts"
import { userAccountOf } from "../user/UserAccount.ts"
import { UserRepository } from "../user/UserRepository.ts"
import type { IssuedPaymentsRequest, RequestedPayment } from "./IssuedPayments.ts"
import { IssuedRequestPolicy } from "./IssuedRequestPolicy.ts"
import { invoiceOf } from "./Payment.ts"
import { InvalidRecipient, TeamAccountMissing } from "./PaymentErrors.ts"
import { escrowEntryOf, paymentEntriesOf } from "./PaymentPlan.ts"
import { type CreatePaymentsRequest, type InstantPaymentRequest, isInvoiceEntry } from "./PaymentRequests.ts"

const isUserId = Schema.is(UserId)

/** The team's svc account, or `TeamAccountMissing` while it has none deployed. */
const accountOf = (team: Team) => {
  const account = teamAccountOf(team)
  return account === undefined ? Effect.fail(new TeamAccountMissing({ team: team.nanoid })) : Effect.succeed(account)
}

/**
 * The chain's suite and where the caller's wallet signs (its forwarder): asked first, so a deployment without a chain
 * refuses (501) before anything is read or written.
 */
const suiteOf = Effect.gen(function* () {
  const chain = yield* ChainGateway
  const addresses = yield* chain.addresses
  return { chain, addresses, forwarder: { chainId: chain.chainId, verifyingContract: addresses.forwarder } }
})

/** Payments issued for signing (POST /v2/payments and the instant payment's issue). */
export const paymentsIssued = Metric.counter("svc_payments_issued_total", {
  description: "Payments issued for signing (POST /v2/payments)",
  incremental: true
})

/**
 * Records what was issued to the caller, for PUT /v2/payments to check the signed copy against, within the team's
 * budget of unexecuted requests (`IssuedRequestPolicy`).
 */
const recordIssued = Effect.fn("PaymentIssuance.recordIssued")(function* (
  team: Team,
  caller: Caller,
  typed: Pick<IssuedBatch, "kind" | "bundle"> | Pick<IssuedInstant, "kind" | "bundle">,
  request: IssuedPaymentsRequest
) {
  const policy = yield* IssuedRequestPolicy
  const store = yield* IssuedRequestStore
  const record = {
    ...typed,
    salt: typed.bundle.typed_data.salt,
    team: team.nanoid,
    issuedTo: caller.nanoid,
    signer: caller.wallet,
    request
  } as IssuedBatch | IssuedInstant
  yield* store.issueWithin(record, {
    maxBytes: policy.maxBytes,
    maxCount: policy.maxCount,
    now: yield* Clock.currentTimeMillis
  })
  yield* Metric.update(paymentsIssued, request.payments.length)
})

/**
 * Refuses, before anything is built, a request the team's budget cannot take: the team already holds its count, or
 * its bytes with the request's own at the least (the stored record holds the request's body, and more). A flood of
 * large requests over budget then costs a read each, not a build (issue 18, item 4; docs/decisions/0058).
 */
const refuseOverBudget = Effect.fn("PaymentIssuance.refuseOverBudget")(function* (team: Team, body: unknown) {
  const policy = yield* IssuedRequestPolicy
  const now = yield* Clock.currentTimeMillis
  const held = yield* IssuedRequestStore.use((store) => store.held(team.nanoid, now))
  const atLeast = new TextEncoder().encode(JSON.stringify(body)).length
  if (held.count + 1 > policy.maxCount || held.bytes + atLeast > policy.maxBytes) {
    return yield* new IssuedRequestsLimit({ team: team.nanoid })
  }
})

/**
 * Only members listed `payable` are paid (employees and contractors, decision 0008): a manager named as a recipient,
 * the caller's own admin membership included, is refused, naming them, before anything is issued.
 */
export const refuseUnpayable = (members: ReadonlyArray<Membership>, recipients: ReadonlySet<UserId>) => {
  const unpayable = members.find((m) => recipients.has(m.user_nanoid) && !isPayable(m.role))
  return unpayable === undefined
    ? Effect.void
    : Effect.fail(
        new InvalidRecipient({
          message: `${unpayable.user_nanoid} is a ${unpayable.role} of the team and cannot be paid: only employees and contractors are`
        })
      )
}

/** A blocked member (or one being blocked) is not paid (decision 0107): refused, naming them, before anything is issued. */
export const refuseBlocked = (members: ReadonlyArray<Membership>, recipients: ReadonlySet<UserId>) => {
  const blocked = members.find((m) => recipients.has(m.user_nanoid) && m.block !== undefined)
  return blocked === undefined
    ? Effect.void
    : Effect.fail(new MemberBlocked({ team: blocked.team_nanoid, user: blocked.user_nanoid }))
}

/** The typed data's envelope: from the caller's wallet, on the team's account, for the policy's lifetime. */
const envelopeOf = (caller: Caller, account: Address) =>
  IssuedRequestPolicy.useSync((policy) => ({
    from: caller.wallet,
    to: account,
    ttlSeconds: policy.ttlSeconds
  }))

/** One payment a batch asks for: to a member, how much, why, and the member's invoice it pays if it names one. */
interface Wanted {
  readonly user: UserId
  readonly amountCents: number
  readonly description: string
  readonly invoice?: InvoiceId | undefined
}

/**
 * What the batch's entries ask for: a member and an amount, or a member's invoice (its author, what is left of it or
 * the entry's part, `invoicePayeeOf`). The same entry twice, or an invoice twice, is a mistake (a CSV row pasted
 * twice), not two payments: refused, naming it. Two entries to one recipient that differ are two invoices and pass.
 */
const wantedOf = Effect.fn("PaymentIssuance.wantedOf")(function* (team: Team, body: CreatePaymentsRequest) {
  const wanted: Array<Wanted> = []
  const entryKeys = new Set<string>()
  for (const entry of body.to) {
    if (isInvoiceEntry(entry)) {
      const payee = yield* invoicePayeeOf(team, entry)
      if (entryKeys.has(entry.invoice_nanoid)) {
        return yield* new InvalidRecipient({ message: `The batch pays ${entry.invoice_nanoid} twice; name it once` })
      }
      entryKeys.add(entry.invoice_nanoid)
      wanted.push({
        user: payee.invoice.recipient_nanoid,
        amountCents: payee.amountCents,
        description: payee.description,
        invoice: payee.invoice.nanoid
      })
      continue
    }
    if (!isUserId(entry.to)) {
      return yield* new InvalidRecipient({ message: "Batch recipients are members, by user nanoid" })
    }
    const key = JSON.stringify([entry.to, entry.amount_cents, entry.invoice_description])
    if (entryKeys.has(key)) {
      return yield* new InvalidRecipient({
        message: `The batch pays ${entry.to} ${entry.amount_cents} cents for "${entry.invoice_description.slice(0, 50)}" twice; send each entry once`
      })
    }
    entryKeys.add(key)
    wanted.push({ user: entry.to, amountCents: entry.amount_cents, description: entry.invoice_description })
  }
  return wanted
})

/** Issues the typed data of a batch to members of `team`, to be signed by the caller's wallet. */
export const issueBatch = Effect.fn("PaymentIssuance.issueBatch")(function* (
  team: Team,
  caller: Caller,
  body: CreatePaymentsRequest
) {
  const { chain, addresses: suite, forwarder } = yield* suiteOf
  yield* refuseOverBudget(team, body)
  const ids = yield* IdGenerator
  const account = yield* accountOf(team)
  const wanted = yield* wantedOf(team, body)
  const recipients = new Set(wanted.map((w) => w.user))
  const members = yield* MembershipRepository.use((m) => m.listTeam(team.nanoid, { offset: 0, limit: undefined }))
  const memberIds = new Set(members.members.map((m) => m.user_nanoid))
  const missing = [...recipients].find((id) => !memberIds.has(id))
  if (missing !== undefined) return yield* new InvalidRecipient({ message: `${missing} is not a member of the team` })
  yield* refuseBlocked(members.members, recipients)
  yield* refuseUnpayable(members.members, recipients)
  const users = yield* UserRepository.use((u) => u.findByIds([...recipients]))
  const addresses = new Map<UserId, Address>(
    yield* Effect.forEach(
      users,
      // Where the member is paid: the payout address they proved (decision 0108), else their own svc account. Typed
      // data already issued keeps the address it was built with: execution rebuilds it from this record.
      (user) =>
        user.payout_address === undefined
          ? Effect.map(userAccountOf(chain, user), (address) => [user.nanoid, address] as const)
          : Effect.succeed([user.nanoid, user.payout_address] as const),
      {
        concurrency: 8
      }
    )
  )
  const group = yield* ids.make("paymentGroup")
  const payments: Array<RequestedPayment & { readonly recipient: Address }> = []
  for (const { user, amountCents, description, invoice } of wanted) {
    // A membership without a stored user cannot be paid either.
    const recipient = addresses.get(user)
    if (recipient === undefined) return yield* new InvalidRecipient({ message: `${user} is not a member of the team` })
    payments.push({
      nanoid: yield* ids.make("payment"),
      invoice_nanoid: invoice ?? (yield* ids.make("invoice")),
      ...(invoice === undefined ? {} : { pays_invoice: true as const }),
      recipient_nanoid: user,
      recipient,
      amount_cents: amountCents,
      invoice: invoiceOf(description)
    })
  }
  if (!Arr.isReadonlyArrayNonEmpty(payments)) return yield* Effect.die(new Error("a batch has at least one entry"))
  const now = Math.floor((yield* Clock.currentTimeMillis) / 1000)
  const entries = paymentEntriesOf(
    { group, payNow: body.pay_now, token: suite.token, payAtTime: body.pay_at_time ?? now },
    Arr.map(payments, (p) => ({ payment: p.nanoid, recipient: p.recipient, amountCents: p.amount_cents }))
  )
  const bundle = yield* makePaymentsTypedData(forwarder, yield* envelopeOf(caller, account), entries)
  yield* recordIssued(
    team,
    caller,
    { kind: "batch", bundle },
    {
      body: { from: body.from, to: body.to, pay_now: body.pay_now },
      group_nanoid: group,
      account,
      payments: payments.map(({ recipient: _recipient, ...payment }) => payment)
    }
  )
  return bundle
})

/** Issues the typed data of an instant payment into the e-mail escrow (pay type 3). */
export const issueInstant = Effect.fn("PaymentIssuance.issueInstant")(function* (
  team: Team,
  caller: Caller,
  body: InstantPaymentRequest
) {
  const { addresses, forwarder } = yield* suiteOf
  yield* refuseOverBudget(team, body)
  const ids = yield* IdGenerator
  const account = yield* accountOf(team)
  const group = yield* ids.make("paymentGroup")
  const payment = yield* ids.make("payment")
  const email = body.external_recipient_email
  const data = body.payment_data
  const description = data.invoice_description ?? ""
  const issued: RequestedPayment = {
    nanoid: payment,
    invoice_nanoid: yield* ids.make("invoice"),
    recipient_email: email,
    amount_cents: body.amount_cents,
    invoice: invoiceOf(description, {
      role_description: data.role_description ?? "",
      services_description: data.services_description,
      payment_details: data.payment_details,
      external_sow_url: data.sow_link ?? "",
      svc_sow: data.svc_sow ?? false,
      ...(data.reason_id === undefined ? {} : { reason_id: data.reason_id })
    })
  }
  const entry = escrowEntryOf({
    payment,
    group,
    escrow: addresses.escrow,
    email,
    amountCents: body.amount_cents,
    token: addresses.token
  })
  const bundle = yield* makePaymentTypedData(forwarder, yield* envelopeOf(caller, account), entry)
  yield* recordIssued(
    team,
    caller,
    { kind: "instant", bundle },
    {
      body: {
        from: body.from,
        to: [{ to: email, amount_cents: body.amount_cents, currency_symbol: "USD", invoice_description: description }],
        pay_now: true
      },
      group_nanoid: group,
      account,
      payments: [issued]
    }
  )
  return bundle
})
