/**
 * Issuing payment typed data (POST /v2/payments, POST /v2/payments/external_entity/instant): recipients resolved to
 * their svc accounts, entries built by the domain, the bundle recorded with what execution needs to settle it.
 */
import { ChainGateway, svcAccountSaltOf } from "@svc/domain/chain"
import {
  IssuedTypedDataStore,
  makePaymentsTypedData,
  makePaymentTypedData,
  type PaymentsTypedDataBundle,
  type PaymentTypedDataBundle
} from "@svc/domain/eip712"
import {
  IdGenerator,
  type InvoiceId,
  type PaymentGroupId,
  type PaymentId,
  type TeamId,
  type UserId
} from "@svc/domain/Ids"
import { MembershipRepository } from "@svc/domain/membership"
import {
  type CreatePaymentsRequest,
  escrowEntryOf,
  type InstantPaymentRequest,
  type InvoiceDetails,
  type PaymentRecipientRequest,
  paymentEntriesOf
} from "@svc/domain/payment"
import type { Team } from "@svc/domain/team"
import { UserRepository } from "@svc/domain/user"
import { Clock, Effect } from "effect"
import type { Address } from "viem"
import { apiError } from "../ApiError.ts"

/** One payment of an issued request, as execution records it. */
export interface PlannedPayment {
  readonly nanoid: PaymentId
  readonly invoice_nanoid: InvoiceId
  readonly recipient_nanoid?: UserId
  readonly recipient_email?: string
  readonly amount_cents: number
  readonly invoice: InvoiceDetails
}

/** What an issued payments request keeps besides the bundle (`IssuedTypedData.request`). */
export interface IssuedPaymentsRequest {
  readonly kind: "batch" | "instant"
  /** The fields PUT /v2/payments must repeat. */
  readonly body: {
    readonly from: TeamId
    readonly to: ReadonlyArray<PaymentRecipientRequest>
    readonly pay_now: boolean
  }
  readonly group_nanoid: PaymentGroupId
  readonly account: Address
  readonly planned: ReadonlyArray<PlannedPayment>
}

const invoiceOf = (description: string, extra: Partial<InvoiceDetails> = {}): InvoiceDetails => ({
  invoice_description: description,
  role_description: "",
  services_description: "",
  payment_details: "",
  external_sow_url: "",
  svc_sow: false,
  ...extra
})

/** The team's svc account, or 409 when the team has none deployed yet. */
const teamAccountOf = (team: Team) =>
  team.svc_account === ""
    ? Effect.fail(apiError("INVALID_STATE_TRANSITION", "The team has no svc account yet"))
    : Effect.succeed(team.svc_account as Address)

/** The svc account address of a user (counterfactual until deployed: tokens can be sent to it either way). */
export const userAccountOf = (user: { readonly nanoid: string; readonly wallet: string }) =>
  ChainGateway.use((chain) => chain.accountAddress(user.wallet as Address, svcAccountSaltOf(user.nanoid))).pipe(
    Effect.orDie
  )

/** Records what was issued, for PUT /v2/payments to check the signed copy against, and answers the bundle. */
const recordIssued = <B extends PaymentsTypedDataBundle | PaymentTypedDataBundle>(
  team: Team,
  caller: { readonly nanoid: UserId; readonly wallet: string },
  bundle: B,
  request: IssuedPaymentsRequest
) =>
  Effect.as(
    IssuedTypedDataStore.use((store) =>
      store.issue({
        salt: bundle.typed_data.salt,
        team: team.nanoid,
        issuedTo: caller.nanoid,
        signer: caller.wallet as Address,
        bundle,
        request
      })
    ),
    bundle
  )

/** Issues the typed data of a batch to members of `team`, signed by `signer` (the caller's wallet). */
export const issueBatch = Effect.fn("PaymentIssuance.issueBatch")(function* (
  team: Team,
  caller: { readonly nanoid: UserId; readonly wallet: string },
  body: CreatePaymentsRequest
) {
  const chain = yield* ChainGateway
  const ids = yield* IdGenerator
  const account = yield* teamAccountOf(team)
  const recipients = new Set<UserId>()
  for (const entry of body.to) {
    if (!entry.to.startsWith("us-")) {
      return yield* Effect.fail(apiError("INVALID_RECIPIENT", "Batch recipients are members, by user nanoid"))
    }
    recipients.add(entry.to as UserId)
  }
  const members = yield* MembershipRepository.use((m) => m.listTeam(team.nanoid, { offset: 0, limit: undefined }))
  const memberIds = new Set(members.members.map((m) => m.user_nanoid))
  const missing = [...recipients].find((id) => !memberIds.has(id))
  if (missing !== undefined) {
    return yield* Effect.fail(apiError("INVALID_RECIPIENT", `${missing} is not a member of the team`))
  }
  const users = yield* UserRepository.use((u) => u.findByIds([...recipients]))
  const addresses = new Map(
    yield* Effect.forEach(
      users,
      (user) => Effect.map(userAccountOf(user), (address) => [user.nanoid, address] as const),
      {
        concurrency: 8
      }
    )
  )
  const group = yield* ids.make("paymentGroup")
  const planned: Array<PlannedPayment> = []
  for (const entry of body.to) {
    planned.push({
      nanoid: yield* ids.make("payment"),
      invoice_nanoid: yield* ids.make("invoice"),
      recipient_nanoid: entry.to as UserId,
      amount_cents: entry.amount_cents,
      invoice: invoiceOf(entry.invoice_description)
    })
  }
  const now = Math.floor((yield* Clock.currentTimeMillis) / 1000)
  const [first, ...rest] = planned.map((p) => ({
    payment: p.nanoid,
    recipient: addresses.get(p.recipient_nanoid as UserId) as Address,
    amountCents: p.amount_cents
  }))
  const entries = paymentEntriesOf(
    { group, payNow: body.pay_now, token: chain.addresses.token, payAtTime: body.pay_at_time ?? now },
    [first as NonNullable<typeof first>, ...rest]
  )
  const bundle = yield* makePaymentsTypedData(
    { chainId: chain.chainId, verifyingContract: chain.addresses.forwarder },
    { from: caller.wallet as Address, to: account },
    entries
  )
  const request: IssuedPaymentsRequest = {
    kind: "batch",
    body: { from: body.from, to: body.to, pay_now: body.pay_now },
    group_nanoid: group,
    account,
    planned
  }
  return yield* recordIssued(team, caller, bundle, request)
})

/** Issues the typed data of an instant payment into the e-mail escrow (pay type 3). */
export const issueInstant = Effect.fn("PaymentIssuance.issueInstant")(function* (
  team: Team,
  caller: { readonly nanoid: UserId; readonly wallet: string },
  body: InstantPaymentRequest
) {
  const chain = yield* ChainGateway
  const ids = yield* IdGenerator
  const account = yield* teamAccountOf(team)
  const group = yield* ids.make("paymentGroup")
  const payment = yield* ids.make("payment")
  const email = body.external_recipient_email.trim().toLowerCase()
  const data = body.payment_data
  const description = data.invoice_description ?? ""
  const planned: PlannedPayment = {
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
    escrow: chain.addresses.escrow,
    email,
    amountCents: body.amount_cents,
    token: chain.addresses.token
  })
  const bundle = yield* makePaymentTypedData(
    { chainId: chain.chainId, verifyingContract: chain.addresses.forwarder },
    { from: caller.wallet as Address, to: account },
    entry
  )
  const request: IssuedPaymentsRequest = {
    kind: "instant",
    body: {
      from: body.from,
      to: [{ to: email, amount_cents: body.amount_cents, currency_symbol: "USD", invoice_description: description }],
      pay_now: true
    },
    group_nanoid: group,
    account,
    planned: [planned]
  }
  return yield* recordIssued(team, caller, bundle, request)
})
