/**
 * Signed requests in two steps, so that a person can look before their wallet signs: `prepare…` asks the API for the
 * typed data and checks it is exactly what was asked (else it throws, and nothing is signed); `submit…` signs it with
 * the account and executes it. `payments.pay` is both at once.
 */
import type { PaymentsTypedDataMessage, PaymentTypedDataMessage, RolesTypedDataMessage } from "@svc/domain/eip712"
import { tokenAmountOf } from "@svc/domain/payment"
import type { SvcOperations, SvcResult } from "./Operations.ts"
import { SvcError } from "./SvcError.ts"

/** Typed data the API issued for payments: a batch's (`payments.create`) or an instant payment's. */
export type PaymentTypedData = SvcResult<"payments", "create">["data"] | SvcResult<"payments", "instant">["data"]

/** Typed data the API issued to grant manager roles (`invites.createManager`, without the invites' ids). */
export type GrantTypedData = Omit<SvcResult<"invites", "createManager">["data"], "invites">

/** What signs the typed data, and whose wallet must be its `from`. */
export interface RequestSigner {
  readonly address: () => Promise<`0x${string}`>
  readonly signTypedData: (bundle: PaymentTypedData | GrantTypedData) => Promise<string>
}

/** One payee of `payments.pay` and `payments.prepare`. */
export interface Payee {
  /** A team member's user id (`us-…`). */
  readonly to: string
  readonly amount_cents: number
  readonly invoice_description?: string
}

/** What `payments.pay` and `payments.prepare` take: the team that pays, whom it pays, and when (now, unless `payAt`). */
export interface PayRequest {
  /** The paying team's id (`te-…`). */
  readonly team: string
  readonly to: ReadonlyArray<Payee>
  /** Registers intents due then, instead of paying now. */
  readonly payAt?: Date
}

/** An instant payment: `amount_cents` from `team` to someone outside the service, by e-mail (claimed by it). */
export interface InstantPaymentRequest {
  readonly team: string
  readonly email: string
  readonly amount_cents: number
  readonly invoice_description?: string
}

/** Typed data the API issued for a payment, checked to pay exactly what was asked: show it, then `submit` it. */
export interface PreparedPayment {
  readonly kind: "payments" | "instant"
  /** The typed data the wallet will sign, as issued. */
  readonly bundle: PaymentTypedData
  /** What is paid, in cents, in all. */
  readonly totalCents: number
  /** What each entry pays, in order, in words: whom, how much, what for, and the invoice (`iv-…`) it pays if any. */
  readonly payees: ReadonlyArray<{
    readonly to: string
    readonly amount_cents: number
    readonly invoice_description: string
    readonly invoice?: string
  }>
  /** `PUT /v2/payments`'s body but for the signer and signature. */
  readonly execution: {
    readonly from: string
    readonly to: ReadonlyArray<
      | {
          to: string
          amount_cents: number
          currency_symbol: "USD"
          invoice_description: string
        }
      | { invoice_nanoid: string }
    >
    readonly pay_now: boolean
    readonly network: "arbitrum"
  }
}

/** What `payments.pay` and `payments.submit` answer: the transaction, and the payments it made (or registered). */
export interface PaymentResult {
  readonly transaction: string
  readonly payments: SvcResult<"payments", "execute">["data"]["payments"]
  /** True when the transaction was sent and is not final yet (the API answered 202; the same call again waits on). */
  readonly inFlight: boolean
}

/** Manager invites to grant on chain: each wallet gets its role in `team` (`POST` then `PUT /v2/invites/manager`). */
export interface ManagerInvitesRequest {
  readonly team: string
  readonly invites: ReadonlyArray<{
    readonly email: string
    readonly role: "team_admin" | "team_finance_admin" | "team_viewer"
    readonly wallet: string
  }>
}

/** Typed data the API issued for manager invites, checked to grant exactly what was asked. */
export interface PreparedGrant {
  readonly bundle: GrantTypedData
  /** The invites it accepts once executed. */
  readonly invites: ReadonlyArray<string>
}

/** Why typed data the API issued is not signed: it does not do `what` was asked. */
export const refuse = (what: string) =>
  new SvcError("UNEXPECTED_RESPONSE", `the typed data the API issued does not ${what}: nothing was signed`)

const sameAddress = (a: string, b: string) => a.toLowerCase() === b.toLowerCase()

/** Refuses typed data whose signer is not `signer`: the wallet would sign for someone else. */
export const checkSigner = async (
  bundle: { readonly typed_data: { readonly from: string } },
  signer: RequestSigner
) => {
  if (!sameAddress((bundle.typed_data as { from: string }).from, await signer.address())) {
    throw refuse("name this wallet as its signer")
  }
}

/** Issues the typed data of a batch (`POST /v2/payments`) and checks it pays what was asked. */
export const preparePayments = async (
  operations: SvcOperations,
  signer: RequestSigner,
  request: PayRequest
): Promise<PreparedPayment> => {
  const execution = {
    from: request.team,
    to: request.to.map((payee) => ({
      to: payee.to,
      amount_cents: payee.amount_cents,
      currency_symbol: "USD" as const,
      invoice_description: payee.invoice_description ?? "Payment"
    })),
    pay_now: request.payAt === undefined,
    network: "arbitrum" as const
  }
  const pay_at_time = request.payAt === undefined ? {} : { pay_at_time: Math.floor(request.payAt.getTime() / 1000) }
  const issued = await operations.payments.create({
    payload: { ...execution, ...pay_at_time }
  })
  const bundle: PaymentTypedData = issued.data
  const entries = (bundle.typed_data as PaymentsTypedDataMessage).data?.payments
  // The CLI's rule: the count, and each amount in order.
  const pays =
    entries !== undefined &&
    entries.length === request.to.length &&
    entries.every(
      (entry, index) => BigInt(entry.amount) === BigInt(tokenAmountOf(request.to[index]?.amount_cents ?? 0))
    )
  if (!pays) throw refuse("pay what was asked")
  await checkSigner(bundle, signer)
  const totalCents = request.to.reduce((sum, payee) => sum + payee.amount_cents, 0)
  return { kind: "payments", bundle, totalCents, execution, payees: execution.to }
}

/** Issues the typed data of an instant payment to an e-mail and checks it pays what was asked. */
export const prepareInstantPayment = async (
  operations: SvcOperations,
  signer: RequestSigner,
  request: InstantPaymentRequest
): Promise<PreparedPayment> => {
  const description = request.invoice_description ?? "Payment"
  const issued = await operations.payments.instant({
    payload: {
      from: request.team,
      amount_cents: request.amount_cents,
      external_recipient_email: request.email,
      payment_data: { invoice_description: description, services_description: "", payment_details: "" },
      currency_symbol: "USD",
      network: "arbitrum"
    }
  })
  const bundle: PaymentTypedData = issued.data
  const entry = (bundle.typed_data as PaymentTypedDataMessage).data
  if (entry === undefined || BigInt(entry.amount) !== BigInt(tokenAmountOf(request.amount_cents))) {
    throw refuse("pay what was asked")
  }
  await checkSigner(bundle, signer)
  const to = [
    {
      to: request.email,
      amount_cents: request.amount_cents,
      currency_symbol: "USD" as const,
      invoice_description: description
    }
  ]
  return {
    kind: "instant",
    bundle,
    totalCents: request.amount_cents,
    execution: { from: request.team, to, pay_now: true, network: "arbitrum" },
    payees: to
  }
}

/** Signs prepared payments and executes them (`PUT /v2/payments`). */
export const submitPayment = async (
  operations: SvcOperations,
  signer: RequestSigner,
  prepared: PreparedPayment
): Promise<PaymentResult> => {
  const signature = await signer.signTypedData(prepared.bundle)
  const executed = await operations.payments.execute({
    payload: {
      ...prepared.execution,
      signer: await signer.address(),
      typed_data: prepared.bundle.typed_data,
      signature
    }
  })
  return {
    transaction: executed.data.transaction,
    payments: executed.data.payments,
    inFlight: "status" in executed.data && executed.data.status === "in_flight"
  }
}

/** Issues the typed data of manager invites (`POST /v2/invites/manager`) and checks it grants what was asked. */
export const prepareManagerGrant = async (
  operations: SvcOperations,
  signer: RequestSigner,
  request: ManagerInvitesRequest
): Promise<PreparedGrant> => {
  const issued = await operations.invites.createManager({
    payload: { nanoid: request.team, invites: request.invites }
  })
  const { invites, ...bundle } = issued.data
  const grants = (bundle.typed_data as RolesTypedDataMessage).data
  const grantsAsked =
    grants.length === request.invites.length &&
    grants.every(
      (grant, index) =>
        grant.role === request.invites[index]?.role && sameAddress(grant.account, request.invites[index]?.wallet ?? "")
    )
  if (!grantsAsked) throw refuse("grant what was asked")
  await checkSigner(bundle, signer)
  return { bundle, invites }
}

/** Signs prepared grants and executes them (`PUT /v2/invites/manager`). */
export const submitManagerGrant = async (operations: SvcOperations, signer: RequestSigner, prepared: PreparedGrant) => {
  const signature = await signer.signTypedData(prepared.bundle)
  const executed = await operations.invites.executeManager({
    payload: {
      invites: prepared.invites,
      signer: await signer.address(),
      typed_data: prepared.bundle.typed_data,
      signature
    }
  })
  return { invites: executed.data.invites, transaction: executed.data.transaction }
}
