/**
 * The svc client with plain promises (issue 20): `createSvcClient({ baseUrl, account })` signs in with the account's
 * wallet (SIWE) when first needed and again when its token expires, exposes every operation of the API grouped by
 * resource (derived from the HTTP contract, so it cannot drift from the server), and pays in one call: it issues the
 * typed data, checks it pays what was asked, signs it here and executes it. The private key never leaves the process:
 * only signatures are sent.
 */
import { makeApiClient } from "@svc/contract"
import { signableOf, type TypedDataBundle } from "@svc/domain/eip712"
import { tokenAmountOf } from "@svc/domain/payment"
import { Effect, Layer } from "effect"
import { FetchHttpClient, HttpClient, HttpClientRequest } from "effect/http"
import { type PayInvoicesRequest, payInvoicesWith } from "./InvoicePay.ts"
import { promised, type SvcOperations, type SvcResult } from "./Operations.ts"
import { readingAnswers, run, SvcError } from "./SvcError.ts"

export type { PayInvoicesRequest } from "./InvoicePay.ts"

/** A viem account (`privateKeyToAccount`, a wallet client's local account, ...). */
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

/** One payee of `payments.pay`. */
export interface Payee {
  /** A team member's user id (`us-…`). */
  readonly to: string
  readonly amount_cents: number
  readonly invoice_description?: string
}

/** What `payments.pay` takes: the team that pays, whom it pays, and when (now, unless `payAt`). */
export interface PayRequest {
  /** The paying team's id (`te-…`). */
  readonly team: string
  readonly to: ReadonlyArray<Payee>
  /** Registers intents due then, instead of paying now. */
  readonly payAt?: Date
}

/** What `payments.pay` answers: the transaction, and the payments it made (or registered, for `payAt`). */
export interface PaymentResult {
  readonly transaction: string
  readonly payments: SvcResult<"payments", "execute">["data"]["payments"]
  /** True when the transaction was sent and is not final yet (the API answered 202; the same call again waits on). */
  readonly inFlight: boolean
}

/** The client: every operation of the API, `payments.pay`, and the session it signs in with. */
export interface SvcClient extends SvcOperations {
  /** The wallet this client signs with, lower case (a promise: an ethers signer answers its address asynchronously). */
  readonly address: () => Promise<`0x${string}`>
  /** Signs in now (SIWE: the message from the API, signed here, exchanged for a JWT); answers the JWT. */
  readonly signIn: () => Promise<string>
  /** The current JWT, signing in again first when there is none or it expires within a minute. */
  readonly token: () => Promise<string>
  readonly invoices: SvcOperations["invoices"] & {
    /** Pays what is left of each member's invoice (`iv-…`) from `team` in one signed batch (`InvoicePay.ts`). */
    readonly pay: (request: PayInvoicesRequest) => Promise<PaymentResult>
  }
  readonly payments: SvcOperations["payments"] & {
    /**
     * Pays team members from `team`: issues the typed data, checks it pays exactly the amounts asked, signs it with
     * the account and executes it. With `payAt`, registers intents due then instead.
     */
    readonly pay: (request: PayRequest) => Promise<PaymentResult>
  }
}

const isEthers = (account: SvcAccount): account is EthersSigner =>
  typeof (account as EthersSigner).getAddress === "function"

/** A JWT's `exp` (seconds), without checking it: the server does. */
const expiryOf = (jwt: string): number => {
  try {
    const payload = JSON.parse(Buffer.from(jwt.split(".")[1] ?? "", "base64url").toString("utf8")) as { exp?: number }
    return typeof payload.exp === "number" ? payload.exp : 0
  } catch {
    return 0
  }
}

/** What signs for the client: its address, SIWE messages and typed data, with a viem account or an ethers signer. */
const signerOf = (account: SvcAccount) => ({
  address: async () =>
    (isEthers(account) ? await account.getAddress() : account.address).toLowerCase() as `0x${string}`,
  signMessage: (message: string) =>
    isEthers(account) ? account.signMessage(message) : account.signMessage({ message }),
  signTypedData: (bundle: TypedDataBundle) => {
    const signable = signableOf(bundle)
    if (!isEthers(account)) return account.signTypedData(signable as never)
    // ethers derives the domain type itself and refuses it among the types.
    const { EIP712Domain: _domain, ...types } = bundle.types as Record<string, Array<{ name: string; type: string }>>
    return account.signTypedData(bundle.domain, types, signable.message)
  }
})

type Signer = ReturnType<typeof signerOf>

/** The client's session: signs in (once at a time) with SIWE, and answers a token a minute from expiry at least. */
const sessionOf = (baseUrl: string, signer: Signer) => {
  const anonymous = makeApiClient({ baseUrl, transformResponse: readingAnswers })
  let session: { readonly jwt: string; readonly expires: number } | undefined
  let signingIn: Promise<string> | undefined
  const signIn = (): Promise<string> => {
    signingIn ??= (async () => {
      try {
        const wallet = await signer.address()
        const challenge = await run(Effect.flatMap(anonymous, (api) => api.auth.siwe({ query: { wallet } as never })))
        const sig = await signer.signMessage(challenge.data.siwe)
        const verified = await run(
          Effect.flatMap(anonymous, (api) =>
            api.auth.verify({ payload: { message: challenge.data.siwe, sig, nonce: challenge.data.nonce } as never })
          )
        )
        session = { jwt: verified.data.jwt, expires: expiryOf(verified.data.jwt) }
        return verified.data.jwt
      } finally {
        signingIn = undefined
      }
    })()
    return signingIn
  }
  const token = async () =>
    session !== undefined && session.expires - 60 > Date.now() / 1000 ? session.jwt : await signIn()
  const forget = () => {
    session = undefined
  }
  return { signIn, token, forget }
}

/**
 * Whether a route takes the bearer token: every `/v2/` route but sign-in's own; not `/health` or `/ready`. (The URL is
 * still the route's path here: the contract's client prefixes the base URL after this step.)
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

/** The body of a batch paying `to`, now or at `payAt`. */
const batchOf = (request: PayRequest) => ({
  from: request.team,
  to: request.to.map((payee) => ({
    to: payee.to,
    amount_cents: payee.amount_cents,
    currency_symbol: "USD" as const,
    invoice_description: payee.invoice_description ?? "Payment"
  })),
  pay_now: request.payAt === undefined,
  network: "arbitrum" as const
})

/** Whether the issued typed data pays exactly what was asked: the count, and each amount in order. */
const paysWhatWasAsked = (bundle: TypedDataBundle, to: ReadonlyArray<Payee>) => {
  const entries = (bundle.typed_data as { data?: { payments?: ReadonlyArray<{ amount: string }> } }).data?.payments
  return (
    entries !== undefined &&
    entries.length === to.length &&
    entries.every((entry, index) => entry.amount === tokenAmountOf(to[index]?.amount_cents ?? 0))
  )
}

/** `payments.pay`: issues the batch, checks it pays what was asked, signs it locally and executes it. */
const payWith =
  (operations: SvcOperations, signer: Signer) =>
  async (request: PayRequest): Promise<PaymentResult> => {
    const body = batchOf(request)
    const issued = await operations.payments.create({
      payload: {
        ...body,
        ...(request.payAt === undefined ? {} : { pay_at_time: Math.floor(request.payAt.getTime() / 1000) })
      }
    })
    const bundle = issued.data as TypedDataBundle
    // Signs only what pays exactly what was asked.
    if (!paysWhatWasAsked(bundle, request.to)) {
      throw new SvcError(
        "UNEXPECTED_RESPONSE",
        "the typed data the API issued does not pay what was asked: nothing was signed"
      )
    }
    const signature = await signer.signTypedData(bundle)
    const executed = await operations.payments.execute({
      payload: { ...body, signer: await signer.address(), typed_data: issued.data.typed_data, signature }
    })
    return {
      transaction: executed.data.transaction,
      payments: executed.data.payments,
      inFlight: "status" in executed.data && executed.data.status === "in_flight"
    }
  }

/**
 * A client of the svc API at `baseUrl`, signing with `account`.
 *
 * @example
 * const svc = createSvcClient({ baseUrl: "http://127.0.0.1:3000", account: privateKeyToAccount(key) })
 * const { transaction } = await svc.payments.pay({ team: "te-…", to: [{ to: "us-…", amount_cents: 1_234 }] })
 */
export const createSvcClient = (options: { readonly baseUrl: string; readonly account: SvcAccount }): SvcClient => {
  const baseUrl = options.baseUrl.replace(/\/+$/, "")
  const signer = signerOf(options.account)
  const session = sessionOf(baseUrl, signer)
  const operations = promised(authenticatedClient(baseUrl, session.token), session.forget)
  return {
    ...operations,
    payments: { ...operations.payments, pay: payWith(operations, signer) },
    invoices: { ...operations.invoices, pay: payInvoicesWith({ ...signer, operations }) },
    address: signer.address,
    signIn: session.signIn,
    token: session.token
  }
}
