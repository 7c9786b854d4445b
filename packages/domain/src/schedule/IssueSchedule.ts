/**
 * Issuing the typed data of a pay schedule (POST /v2/pay_schedules), for the caller's wallet to sign once for all of
 * its instalments: payees resolved to their svc accounts, the schedule's id chosen now (its on-chain id is its hash),
 * and the bundle recorded with what execution records, within the team's budget of issued requests.
 */
import { Clock, Effect } from "effect"
import { ChainGateway } from "../chain/ChainGateway.ts"
import type { Address } from "../Evm.ts"
import { IssuedRequestStore, IssuedRequestsLimit, type IssuedSchedule } from "../eip712/IssuedRequestStore.ts"
import { scheduleTypedData } from "../eip712/ScheduleTypedData.ts"
import { makeRequestEnvelope } from "../eip712/TypedDataBuilder.ts"
import { IdGenerator, type InvoiceId, type UserId } from "../Ids.ts"
import { InvoiceNotPayable } from "../invoice/InvoiceErrors.ts"
import { invoicePayeeOf } from "../invoice/PayInvoices.ts"
import { MembershipRepository } from "../membership/MembershipRepository.ts"
import { TeamAccess } from "../membership/TeamAccess.ts"
import { IssuedRequestPolicy } from "../payment/IssuedRequestPolicy.ts"
import { tokenAmountOf, usdcDecimals } from "../payment/Payment.ts"
import { InvalidRecipient, TeamAccountMissing } from "../payment/PaymentErrors.ts"
import { refuseBlocked, refuseUnpayable } from "../payment/PaymentIssuance.ts"
import { defaultValidMinutes } from "../payment/PaymentPlan.ts"
import { type Team, teamAccountOf } from "../team/Team.ts"
import type { Caller } from "../user/Caller.ts"
import { userAccountOf } from "../user/UserAccount.ts"
import { UserRepository } from "../user/UserRepository.ts"
import { type SchedulePayee, scheduleOnchainIdOf } from "./PaySchedule.ts"
import { FirstPayInPast } from "./PayScheduleErrors.ts"
import {
  type CreatePayScheduleRequest,
  isScheduleInvoiceEntry,
  type ScheduleInvoiceRequest
} from "./ScheduleRequests.ts"

/** What one entry asks for each instalment: a member and an amount, and the invoice it pays part of if it names one. */
interface WantedPayee {
  readonly user: UserId
  readonly amountCents: number
  readonly description: string
  readonly invoice?: InvoiceId | undefined
}

/**
 * What an invoice entry asks for each instalment (decision 0117): its author, `amount_cents` or what is left of it over
 * the schedule's `count` instalments, so long as all of them together pay no more than is left.
 */
const invoiceEntryOf = Effect.fn("PaySchedules.invoiceEntryOf")(function* (
  team: Team,
  entry: ScheduleInvoiceRequest,
  count: number
) {
  const payee = yield* invoicePayeeOf(team, { invoice_nanoid: entry.invoice_nanoid })
  const left = payee.amountCents
  const refused = (why: string) =>
    new InvoiceNotPayable({ nanoid: entry.invoice_nanoid, message: `${entry.invoice_nanoid} ${why}` })
  if (entry.amount_cents === undefined && left % count !== 0) {
    return yield* refused(
      `has ${left} cents left to pay, which ${count} equal instalments cannot pay; give amount_cents for each`
    )
  }
  const each = entry.amount_cents ?? left / count
  if (each * count > left) {
    return yield* refused(`has ${left} cents left to pay; ${count} instalments of ${each} cents pay ${each * count}`)
  }
  return {
    user: payee.invoice.recipient_nanoid,
    amountCents: each,
    description: payee.description,
    invoice: payee.invoice.nanoid
  } satisfies WantedPayee
})

/**
 * The payees, each a payable member of the team (not blocked) once, resolved to the svc account they are paid into;
 * an invoice entry pays the invoice's author.
 */
const payeesOf = Effect.fn("PaySchedules.payeesOf")(function* (team: Team, body: CreatePayScheduleRequest) {
  const chain = yield* ChainGateway
  const wanted: Array<WantedPayee> = []
  for (const entry of body.to) {
    wanted.push(
      isScheduleInvoiceEntry(entry)
        ? yield* invoiceEntryOf(team, entry, body.count)
        : { user: entry.to, amountCents: entry.amount_cents, description: entry.invoice_description }
    )
  }
  const seen = new Set<UserId>()
  for (const { user, invoice } of wanted) {
    if (seen.has(user)) {
      const what = invoice === undefined ? user : `${user} (the author of ${invoice})`
      return yield* new InvalidRecipient({ message: `The schedule names ${what} twice; pay each member once` })
    }
    seen.add(user)
  }
  const members = yield* MembershipRepository.use((m) => m.listTeam(team.nanoid, { offset: 0, limit: undefined }))
  const memberIds = new Set(members.members.map((m) => m.user_nanoid))
  const missing = [...seen].find((id) => !memberIds.has(id))
  if (missing !== undefined) return yield* new InvalidRecipient({ message: `${missing} is not a member of the team` })
  // Only payable members (employees and contractors, decision 0008), as a batch pays them, and none blocked.
  yield* refuseUnpayable(members.members, seen)
  yield* refuseBlocked(members.members, seen)
  const users = yield* UserRepository.use((u) => u.findByIds([...seen]))
  const accounts = new Map<UserId, Address>(
    yield* Effect.forEach(users, (user) => Effect.map(userAccountOf(chain, user), (a) => [user.nanoid, a] as const), {
      concurrency: 8
    })
  )
  return yield* Effect.forEach(wanted, ({ user, amountCents, description, invoice }) => {
    const recipient = accounts.get(user)
    return recipient === undefined
      ? Effect.fail(new InvalidRecipient({ message: `${user} is not a member of the team` }))
      : Effect.succeed({
          recipient_nanoid: user,
          recipient,
          amount_cents: amountCents,
          token_amount: tokenAmountOf(amountCents),
          invoice_description: description,
          ...(invoice === undefined ? {} : { invoice_nanoid: invoice })
        } satisfies SchedulePayee)
  })
})

/**
 * The schedule's typed data (`payments.create`) and its nanoid. Its first instalment is due at `first_pay_at`, now
 * or later; each instalment may be paid for a day from its due time.
 *
 * @example
 * const { bundle, schedule } = yield* issueSchedule(caller, {
 *   team_nanoid, to: [{ to: "us-…", amount_cents: 250_000, invoice_description: "Salary" }],
 *   interval: "monthly", first_pay_at: "2027-01-31T09:00:00.000Z", count: 12
 * })
 */
export const issueSchedule = Effect.fn("PaySchedules.issue")(function* (
  caller: Caller,
  body: CreatePayScheduleRequest
) {
  const { team } = yield* TeamAccess.use((access) => access.authorize(caller, body.team_nanoid, "payments.create"))
  const chain = yield* ChainGateway
  const suite = yield* chain.addresses
  const policy = yield* IssuedRequestPolicy
  const now = yield* Clock.currentTimeMillis
  const held = yield* IssuedRequestStore.use((store) => store.held(team.nanoid, now))
  if (held.count + 1 > policy.maxCount) return yield* new IssuedRequestsLimit({ team: team.nanoid })
  const firstPayAt = Math.floor(Date.parse(body.first_pay_at) / 1000)
  if (firstPayAt < Math.floor(now / 1000)) return yield* new FirstPayInPast({ first_pay_at: body.first_pay_at })
  const account = teamAccountOf(team)
  if (account === undefined) return yield* new TeamAccountMissing({ team: team.nanoid })
  const payees = yield* payeesOf(team, body)
  const schedule = yield* IdGenerator.use((ids) => ids.make("paySchedule"))
  const envelope = yield* makeRequestEnvelope({ from: caller.wallet, to: account, ttlSeconds: policy.ttlSeconds })
  const bundle = scheduleTypedData({ chainId: chain.chainId, verifyingContract: suite.forwarder }, envelope, {
    id: scheduleOnchainIdOf(schedule),
    token: suite.token,
    firstPayAt: String(firstPayAt),
    interval: body.interval,
    count: String(body.count),
    validMinutes: String(defaultValidMinutes),
    payees: payees.map((payee) => ({ recipient: payee.recipient, amount: payee.token_amount })) as never
  })
  const record: IssuedSchedule = {
    kind: "schedule",
    bundle,
    salt: bundle.typed_data.salt,
    team: team.nanoid,
    issuedTo: caller.nanoid,
    signer: caller.wallet,
    request: {
      schedule,
      account,
      interval: body.interval,
      first_pay_at: firstPayAt,
      count: body.count,
      valid_minutes: defaultValidMinutes,
      token: suite.token,
      token_decimals: usdcDecimals,
      payees
    }
  }
  yield* IssuedRequestStore.use((store) =>
    store.issueWithin(record, { maxBytes: policy.maxBytes, maxCount: policy.maxCount, now })
  )
  return { bundle, schedule }
})
