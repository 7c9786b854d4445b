/**
 * The svc client with plain promises (issue 20): `createSvcClient({ baseUrl, account })` signs in with the account's
 * wallet (SIWE) when first needed, renews its session quietly before it expires, exposes every operation of the API
 * grouped by resource (derived from the HTTP contract, so it cannot drift from the server), and pays in one call: it
 * issues the typed data, checks it pays what was asked, signs it here and executes it (or in two, `prepare` and
 * `submit`, to show the typed data between). The private key never leaves the process: only signatures are sent. A
 * browser wallet signs through `eip1193Account` (issue 40).
 */
import { makeApiClient } from "@svc/contract"
import { signableOf, type TypedDataBundle } from "@svc/domain/eip712"
import { Effect, Layer } from "effect"
import { FetchHttpClient, HttpClient, HttpClientRequest } from "effect/http"
import { type PayInvoicesRequest, prepareInvoicePayment } from "./InvoicePay.ts"
import { promised, type SvcOperations, type SvcResult } from "./Operations.ts"
import { changePayout, type PayoutChangeRequest, type PayoutTypedData } from "./PayoutChange.ts"
import {
  type GrantTypedData,
  type InstantPaymentRequest,
  type ManagerInvitesRequest,
  type PaymentResult,
  type PaymentTypedData,
  type PayRequest,
  type PreparedGrant,
  type PreparedPayment,
  prepareInstantPayment,
  prepareManagerGrant,
  preparePayments,
  submitManagerGrant,
  submitPayment
} from "./Prepared.ts"
import {
  type PreparedSchedule,
  prepareScheduleWith,
  type ScheduleParts,
  type ScheduleRequest,
  type ScheduleResult,
  submitScheduleWith
} from "./Schedules.ts"
import { type SessionStore, sessionOf } from "./Session.ts"
import { readingAnswers, SvcError } from "./SvcError.ts"

/** A viem account (`privateKeyToAccount`, a wallet client's local account, `eip1193Account`, ...). */
export interface ViemAccount {
  readonly address: `0x${string}`
  readonly signMessage: (args: { readonly message: string }) => Promise<`0x${string}`>
  readonly signTypedData: (args: {
    readonly domain: Record<string, unknown>
    readonly types: Record<string, unknown>
    readonly primaryType: string
    readonly message: Record<string, unknown>
  }) => Promise<`0x${string}`>
}

/** An ethers v6 signer (`Wallet`, a browser provider's signer, ...). */
export interface EthersSigner {
  readonly getAddress: () => Promise<string>
  readonly signMessage: (message: string) => Promise<string>
  readonly signTypedData: (
    domain: Record<string, unknown>,
    types: Record<string, Array<{ readonly name: string; readonly type: string }>>,
    value: Record<string, unknown>
  ) => Promise<string>
}

/** What signs for the client: a viem account or an ethers signer. */
export type SvcAccount = ViemAccount | EthersSigner

/** The client: every operation of the API, payments and grants signed here, and the session it signs in with. */
export interface SvcClient extends SvcOperations {
  /** The wallet this client signs with, lower case (a promise: an ethers signer answers its address asynchronously). */
  readonly address: () => Promise<`0x${string}`>
  /** Signs in now (SIWE: the message from the API, signed here, exchanged for a JWT); answers the JWT. */
  readonly signIn: () => Promise<string>
  /**
   * The current JWT: renewed without a signature in its last hour (`POST /v2/auth/refresh`), signed for again when
   * there is none usable. Calling it now and then keeps a session alive.
   */
  readonly token: () => Promise<string>
  readonly invoices: SvcOperations["invoices"] & {
    /** Pays what is left of each member's invoice (`iv-…`) from `team` in one signed batch (`InvoicePay.ts`). */
    readonly pay: (request: PayInvoicesRequest) => Promise<PaymentResult>
    /** Issues the typed data of `pay` and checks it pays what each invoice says is left; `payments.submit` signs it. */
    readonly prepare: (request: PayInvoicesRequest) => Promise<PreparedPayment>
  }
  /** Forgets the session (and its stored copy): the next call signs in again. */
  readonly signOut: () => void
  readonly payments: SvcOperations["payments"] & {
    /**
     * Pays team members from `team`: issues the typed data, checks it pays exactly the amounts asked, signs it with
     * the account and executes it. With `payAt`, registers intents due then instead.
     */
    readonly pay: (request: PayRequest) => Promise<PaymentResult>
    /** Issues the typed data of `pay` and checks it (throws, having signed nothing, when it is not what was asked). */
    readonly prepare: (request: PayRequest) => Promise<PreparedPayment>
    /** Issues and checks the typed data of an instant payment to an e-mail. */
    readonly prepareInstant: (request: InstantPaymentRequest) => Promise<PreparedPayment>
    /** Signs prepared typed data with the account and executes it. */
    readonly submit: (prepared: PreparedPayment) => Promise<PaymentResult>
  }
  readonly invites: SvcOperations["invites"] & {
    /** Issues the typed data that grants manager roles on chain, checked to grant what was asked. */
    readonly prepareManagers: (request: ManagerInvitesRequest) => Promise<PreparedGrant>
    /** Signs prepared grants with the account and executes them: each wallet is then a member with its role. */
    readonly submitManagers: (
      prepared: PreparedGrant
    ) => Promise<{ readonly invites: ReadonlyArray<string>; readonly transaction: string }>
  }
  /** Pay schedules: `create` issues one, checks it, signs it here once for every instalment and registers it. */
  readonly schedules: Omit<SvcOperations["paySchedules"], "create"> & {
    readonly create: (request: ScheduleRequest) => Promise<ScheduleResult>
    /** Issues the schedule's typed data and checks it (throws, having signed nothing, when it is not what was asked). */
    readonly prepare: (request: ScheduleRequest) => Promise<PreparedSchedule>
    /** Signs a prepared schedule once with the account and registers it. */
    readonly submit: (prepared: PreparedSchedule) => Promise<ScheduleResult>
  }
  readonly payoutAddresses: SvcOperations["payoutAddresses"] & {
    /**
     * Sets where this client's user is paid (decision 0108): issues the proof, checks it names this wallet and
     * `address`, signs it with `addressSigner` and with the client's own account, and sets it. Answers the new state.
     */
    readonly change: (request: PayoutChangeRequest) => Promise<SvcResult<"payoutAddresses", "set">["data"]>
  }
}

export type { PayInvoicesRequest } from "./InvoicePay.ts"
export type { Payee, PaymentResult, PayRequest } from "./Prepared.ts"

const isEthers = (account: SvcAccount): account is EthersSigner =>
  typeof (account as EthersSigner).getAddress === "function"

/** What signs for the client: its address, SIWE messages and typed data, with a viem account or an ethers signer. */
const signerOf = (account: SvcAccount) => ({
  address: async () =>
    (isEthers(account) ? await account.getAddress() : account.address).toLowerCase() as `0x${string}`,
  signMessage: (message: string) =>
    isEthers(account) ? account.signMessage(message) : account.signMessage({ message }),
  signTypedData: (issued: PaymentTypedData | GrantTypedData | PayoutTypedData | TypedDataBundle) => {
    // The domain's own shape of the same typed data (its ids branded), as the API issued it.
    const bundle = issued as unknown as TypedDataBundle
    const signable = signableOf(bundle)
    if (!isEthers(account)) return account.signTypedData(signable as never)
    // ethers derives the domain type itself and refuses it among the types.
    const { EIP712Domain: _domain, ...types } = bundle.types as Record<string, Array<{ name: string; type: string }>>
    return account.signTypedData(bundle.domain, types, signable.message)
  }
})

/**
 * Whether a route takes the bearer token: every `/v2/` route but sign-in's own; not `/health` or `/ready`. (The URL is
 * still the route's path here: the contract's client prefixes the base URL after this step.) `POST /v2/auth/refresh`
 * is sent with the token by the session itself.
 */
const needsToken = (path: string) => path.startsWith("/v2/") && !path.startsWith("/v2/auth/")

/** The typed client whose every request carries the current token, asked for as it is sent. */
const authenticatedClient = (baseUrl: string, token: () => Promise<string>) =>
  Effect.runSync(
    makeApiClient({
      baseUrl,
      httpClient: Layer.effect(
        HttpClient.HttpClient,
        Effect.map(HttpClient.HttpClient, (client) =>
          HttpClient.mapRequestEffect(client, (request) =>
            needsToken(request.url)
              ? Effect.map(Effect.promise(token), (jwt) => HttpClientRequest.bearerToken(request, jwt))
              : Effect.succeed(request)
          )
        )
      ).pipe(Layer.provide(FetchHttpClient.layer)),
      transformResponse: readingAnswers
    })
  )

/**
 * A client of the svc API at `baseUrl`, signing with `account`. A web app passes `session` to keep its JWT across
 * page loads (in `sessionStorage`: issue 40).
 *
 * @example
 * const svc = createSvcClient({ baseUrl: "http://127.0.0.1:3000", account: privateKeyToAccount(key) })
 * const { transaction } = await svc.payments.pay({ team: "te-…", to: [{ to: "us-…", amount_cents: 1_234 }] })
 */
export const createSvcClient = (options: {
  readonly baseUrl: string
  readonly account: SvcAccount
  readonly session?: SessionStore | undefined
}): SvcClient => {
  const baseUrl = options.baseUrl.replace(/\/+$/, "")
  const signer = signerOf(options.account)
  const session = sessionOf(baseUrl, signer, options.session)
  const operations = promised(authenticatedClient(baseUrl, session.token), session.forget)
  const scheduleParts: ScheduleParts = {
    issue: operations.paySchedules.create as never,
    readInvoice: async (invoice) => (await operations.invoices.get({ params: { invoice_nanoid: invoice } })).data,
    execute: operations.paySchedules.execute as never,
    address: signer.address,
    signTypedData: signer.signTypedData,
    refuse: (message) => new SvcError("UNEXPECTED_RESPONSE", message)
  }
  const prepareSchedule = prepareScheduleWith(scheduleParts)
  const submitSchedule = submitScheduleWith(scheduleParts)
  return {
    ...operations,
    payments: {
      ...operations.payments,
      pay: async (request) => submitPayment(operations, signer, await preparePayments(operations, signer, request)),
      prepare: (request) => preparePayments(operations, signer, request),
      prepareInstant: (request) => prepareInstantPayment(operations, signer, request),
      submit: (prepared) => submitPayment(operations, signer, prepared)
    },
    invites: {
      ...operations.invites,
      prepareManagers: (request) => prepareManagerGrant(operations, signer, request),
      submitManagers: (prepared) => submitManagerGrant(operations, signer, prepared)
    },
    schedules: {
      ...operations.paySchedules,
      create: async (request) => submitSchedule(await prepareSchedule(request)),
      prepare: prepareSchedule,
      submit: submitSchedule
    },
    invoices: {
      ...operations.invoices,
      pay: async (request) =>
        submitPayment(operations, signer, await prepareInvoicePayment(operations, signer, request)),
      prepare: (request) => prepareInvoicePayment(operations, signer, request)
    },
    payoutAddresses: {
      ...operations.payoutAddresses,
      change: (request) => changePayout(operations, signer, signerOf(request.addressSigner), request)
    },
    address: signer.address,
    signIn: session.signIn,
    token: session.token,
    signOut: session.forget
  }
}
