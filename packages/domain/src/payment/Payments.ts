/**
 * The payment use cases (SPEC §4.3, §4.5, §4.6, §4.7 and the balance of DESIGN §5), each for a caller the access
 * check lets through: issue typed data, execute signed requests once, query the ledger, read a balance.
 * docs/payments.md tells the flow.
 */
import { Clock, Context, Effect, Layer, Schema } from "effect"
import type { RequestError } from "../chain/ChainError.ts"
import { ChainGateway } from "../chain/ChainGateway.ts"
import type { Address } from "../Evm.ts"
import { IssuedRequestStore, type IssuedRequestsLimit } from "../eip712/IssuedRequestStore.ts"
import type { SignedRequestError } from "../eip712/SignedRequest.ts"
import type { PaymentsTypedDataBundle, PaymentTypedDataBundle } from "../eip712/TypedData.ts"
import { IdGenerator, type PaymentId, TeamId, UserId } from "../Ids.ts"
import { InsufficientPermissions } from "../membership/MembershipErrors.ts"
import { MembershipRepository } from "../membership/MembershipRepository.ts"
import { TeamAccess } from "../membership/TeamAccess.ts"
import { Randomness } from "../Randomness.ts"
import { SignatureVerifier } from "../signature/SignatureVerifier.ts"
import { teamAccountOf } from "../team/Team.ts"
import type { TeamNotFound } from "../team/TeamNotFound.ts"
import { TeamRepository } from "../team/TeamRepository.ts"
import type { Caller } from "../user/Caller.ts"
import { userAccountOf } from "../user/UserAccount.ts"
import { UserNotFound } from "../user/UserNotFound.ts"
import { UserRepository } from "../user/UserRepository.ts"
import type { BalanceQuery, CurrencyBalance } from "./Balance.ts"
import { cancelPayment } from "./IntentCancellation.ts"
import { IssuedRequestPolicy } from "./IssuedRequestPolicy.ts"
import { amountCentsOf } from "./Payment.ts"
import {
  BalanceNotFound,
  type ExecutionBodyMismatch,
  type ExecutionInProgress,
  IntentNotCancelable,
  type InvalidPaymentsCursor,
  type InvalidRecipient,
  type TeamAccountMissing
} from "./PaymentErrors.ts"
import { type ExecutionAnswer, executePayments } from "./PaymentExecution.ts"
import { issueBatch, issueInstant } from "./PaymentIssuance.ts"
import type { PaymentItem } from "./PaymentItem.ts"
import { paymentItemsOf } from "./PaymentItems.ts"
import { type LedgerQuery, PaymentLedger, PaymentNotFound } from "./PaymentLedger.ts"
import { paymentStateFilter } from "./PaymentMachine.ts"
import {
  type CreatePaymentsRequest,
  type ExecutePaymentsRequest,
  type InstantPaymentRequest,
  maxPaymentsPage,
  type PaymentsQuery
} from "./PaymentRequests.ts"
import { cursorAfter, positionOf } from "./PaymentsCursor.ts"

/** Why a payment action is refused before anything is issued or sent: the team, or the caller's role. */
type AccessError = TeamNotFound | InsufficientPermissions

/** Why issuing typed data is refused. */
export type IssueError = AccessError | TeamAccountMissing | InvalidRecipient | IssuedRequestsLimit

/**
 * Why an execution is refused (nothing moved, or it already did and its result is not recorded yet), or could not
 * finish (`ChainUnavailable`: retry later).
 */
export type ExecuteError = AccessError | SignedRequestError | ExecutionBodyMismatch | ExecutionInProgress | RequestError

/** An svc account and what it holds (GET /v2/balance `data`). */
export interface AccountBalance {
  readonly svc_account_address: Address
  readonly balances: ReadonlyArray<CurrencyBalance>
}

/** A page of the payments query. */
export interface PaymentsPage {
  readonly items: ReadonlyArray<PaymentItem>
  /** Where the next page starts; `null` when this one ends the list. */
  readonly next_cursor: string | null
}

/** What cancelling an intent answers (`DELETE /v2/payments/intents/{payment_nanoid}`). */
export const CanceledIntent = Schema.Struct({ payment_nanoid: Schema.String, state: Schema.Literal("canceled") })
export type CanceledIntent = typeof CanceledIntent.Type

/** Payments of teams, for a caller. */
export class Payments extends Context.Service<
  Payments,
  {
    /** The typed data of a batch to members, for the caller's wallet to sign (`pay_now` or an intent). */
    readonly issueBatch: (
      caller: Caller,
      body: CreatePaymentsRequest
    ) => Effect.Effect<PaymentsTypedDataBundle, IssueError>
    /** The typed data of an instant payment to an e-mail, into the escrow. */
    readonly issueInstant: (
      caller: Caller,
      body: InstantPaymentRequest
    ) => Effect.Effect<PaymentTypedDataBundle, IssueError>
    /** Executes a signed request at most once across replicas; a replay answers the first result. */
    /** Executes signed payments: the result, or (`inFlight`) the transaction still in flight after the wait (202). */
    readonly execute: (caller: Caller, body: ExecutePaymentsRequest) => Effect.Effect<ExecutionAnswer, ExecuteError>
    /**
     * The team's payments matching the SPEC §4.3 filters, newest first: a page of `limit` (default and at most
     * `maxPaymentsPage`) from `cursor`, and the cursor of the next page (`null` at the end).
     */
    readonly query: (
      caller: Caller,
      query: PaymentsQuery
    ) => Effect.Effect<PaymentsPage, AccessError | InvalidPaymentsCursor>
    /**
     * Cancels a registered intent that has not started executing (docs/decisions/0057): its signer may, and so may
     * whoever may execute the team's payments. Answers the payment as canceled.
     */
    readonly cancelIntent: (
      caller: Caller,
      payment: PaymentId
    ) => Effect.Effect<CanceledIntent, AccessError | PaymentNotFound | IntentNotCancelable>
    /** The svc account of a team (`balance.read`) or of the caller, and its balances in cents. */
    readonly balance: (
      caller: Caller,
      query: BalanceQuery
    ) => Effect.Effect<AccountBalance, AccessError | UserNotFound | BalanceNotFound>
  }
>()("@svc/domain/payment/Payments") {
  /** On the chain, the payment storage, the repositories, ids, randomness and the signature check. */
  static readonly layer = Layer.effect(
    Payments,
    Effect.gen(function* () {
      const access = yield* TeamAccess
      const chain = yield* ChainGateway
      const ledger = yield* PaymentLedger
      // The use cases ask for the ports they need; the service answers them with these.
      const ports = yield* Effect.context<
        | ChainGateway
        | IssuedRequestStore
        | PaymentLedger
        | MembershipRepository
        | UserRepository
        | IdGenerator
        | Randomness
        | SignatureVerifier
        | TeamRepository
      >()
      // The limits are read here, where the composition root set them: a request's fiber would see the defaults.
      const limits = yield* IssuedRequestPolicy
      const withPorts = Effect.provideContext(
        Context.add(
          Context.pick(
            ChainGateway,
            IssuedRequestStore,
            PaymentLedger,
            MembershipRepository,
            UserRepository,
            IdGenerator,
            Randomness,
            SignatureVerifier,
            TeamRepository
          )(ports),
          IssuedRequestPolicy,
          limits
        )
      )

      /** The svc account whose balance `nanoid` names, if the caller may see it. */
      const accountOf = Effect.fn("Payments.accountOf")(function* (caller: Caller, nanoid: BalanceQuery["nanoid"]) {
        if (Schema.is(TeamId)(nanoid)) {
          const { team } = yield* access.authorize(caller, nanoid, "balance.read")
          const account = teamAccountOf(team)
          if (account === undefined) {
            return yield* new BalanceNotFound({ nanoid, message: "The team has no svc account yet" })
          }
          return account
        }
        if (Schema.is(UserId)(nanoid)) {
          if (caller.nanoid !== nanoid) return yield* new InsufficientPermissions({ message: "Only your own balance" })
          const user = yield* withPorts(UserRepository.use((u) => u.findById(nanoid)))
          if (user._tag === "None") return yield* new UserNotFound({ user: nanoid })
          return yield* userAccountOf(chain, user.value)
        }
        return yield* new BalanceNotFound({ nanoid, message: "Company accounts have no balance here" })
      })

      return Payments.of({
        issueBatch: Effect.fn("Payments.issueBatch")(function* (caller, body) {
          const { team } = yield* access.authorize(caller, body.from, "payments.create")
          return yield* withPorts(issueBatch(team, caller, body))
        }),

        issueInstant: Effect.fn("Payments.issueInstant")(function* (caller, body) {
          const { team } = yield* access.authorize(caller, body.from, "payments.create")
          return yield* withPorts(issueInstant(team, caller, body))
        }),

        execute: Effect.fn("Payments.execute")(function* (caller, body) {
          const { team } = yield* access.authorize(caller, body.from, "payments.execute")
          return yield* withPorts(executePayments(team, body))
        }),

        query: Effect.fn("Payments.query")(function* (caller, query) {
          const { team } = yield* access.authorize(caller, query.team_nanoid, "payments.read")
          const states = paymentStateFilter[query.state]
          let filter: LedgerQuery
          if (query.query_type === "payable") {
            filter = {
              states,
              payer: team.nanoid,
              ...(query.recipient === undefined ? {} : { recipients: [query.recipient] })
            }
          } else {
            const page = yield* withPorts(
              MembershipRepository.use((m) => m.listTeam(team.nanoid, { offset: 0, limit: undefined }))
            )
            const members = page.members.map((m) => m.user_nanoid)
            const recipients = query.recipient === undefined ? members : members.filter((id) => id === query.recipient)
            filter = { states, notPayer: team.nanoid, recipients }
          }
          const after = query.cursor === undefined ? undefined : yield* positionOf(query.cursor, query)
          const limit = query.limit ?? maxPaymentsPage
          // `scheduled` also selects intents whose time is still to come (docs/payments.md).
          const now = Math.floor((yield* Clock.currentTimeMillis) / 1000)
          // One more than the page tells whether another page follows.
          const payments = yield* ledger.list({
            ...filter,
            ...(query.state === "scheduled" ? { intentsDueAfter: now } : {}),
            ...(query.start_date === undefined ? {} : { createdFrom: dayStart(query.start_date) }),
            ...(query.end_date === undefined ? {} : { createdTo: dayStart(query.end_date) + 86_399 }),
            ...(after === undefined ? {} : { after }),
            limit: limit + 1
          })
          const page = payments.slice(0, limit)
          const last = page.at(-1)
          return {
            items: yield* withPorts(paymentItemsOf(page)),
            next_cursor: payments.length > limit && last !== undefined ? cursorAfter(last, query) : null
          }
        }),

        cancelIntent: Effect.fn("Payments.cancelIntent")(function* (caller, id) {
          const payment = yield* ledger.find(id)
          if (payment === undefined) return yield* new PaymentNotFound({ nanoid: id })
          // Its signer may take back what they registered; anyone else needs the right to execute the team's payments.
          if (payment.payer_nanoid !== caller.nanoid) {
            yield* access.authorize(caller, payment.team_nanoid, "payments.execute")
          }
          const refused = new IntentNotCancelable({
            nanoid: id,
            state: payment.state,
            message: `Only an intent not yet executing can be canceled; this payment is ${payment.state}`
          })
          if (payment.state !== "intent") return yield* refused
          // Conditional on `intent`: the runner takes an intent only by moving it out of that state first.
          if (!(yield* withPorts(cancelPayment(payment, "intent")))) return yield* refused
          return { payment_nanoid: id, state: "canceled" as const }
        }),

        balance: Effect.fn("Payments.balance")(function* (caller, query) {
          const address = yield* accountOf(caller, query.nanoid)
          const units = yield* chain.balanceOf(address).pipe(Effect.orDie)
          const currencies = query.currencies?.split(",")
          const balances =
            currencies === undefined || currencies.includes("USD")
              ? [{ currency: "USD", balance_cents: amountCentsOf(units.toString()) }]
              : []
          return { svc_account_address: address, balances }
        })
      })
    })
  ).pipe(Layer.provide(TeamAccess.layer))
}

/** The first second of a `YYYY-MM-DD` day (UTC), in unix seconds. */
const dayStart = (date: string) => Math.floor(Date.parse(`${date}T00:00:00.000Z`) / 1000)
