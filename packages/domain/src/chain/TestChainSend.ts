/**
 * What the in-memory chain of `ChainGateway.layerTest` does when it is sent something (`TestChain.ts`): a transaction
 * handed to its pool and answered as the test set it (`TestChainBehaviour`), and the forwarder's requests it executes
 * at their block (payments, role grants) and the service's own revocations.
 */
import { Clock, Deferred, Duration, Effect, Option } from "effect"
import type { Address, Hex } from "viem"
import {
  ChainUnreachable,
  InsufficientBalance,
  type RequestError,
  RequestExpired,
  SaltReplayed,
  SendOutcomeUnknown,
  SignerNotAuthorised,
  UnknownAccount
} from "./ChainError.ts"
import type { SettlementProgress } from "./ChainGateway.ts"
import type { RolesForwardRequest, Signed } from "./ForwardRequest.ts"
import type { PaymentOutcome, Revocation, RolesSettlement, Settlement } from "./Settlement.ts"
import { mineBlock, move, nextHash, type PendingTransaction, type TestChainState } from "./TestChainState.ts"

/** The suite's addresses on the test chain. */
export const testAddresses = {
  forwarder: "0x000000000000000000000000000000000000f0f0",
  escrow: "0x000000000000000000000000000000000000e5e5",
  token: "0x00000000000000000000000000000000000000dc"
} as const satisfies Record<string, Address>

/** The envelope of a forwarded request. */
interface Envelope {
  readonly from: Address
  readonly to: Address
  readonly salt: bigint
  readonly expires: bigint
}

/** The payments a request carries, as the forwarder reads them. */
export interface CarriedPayment {
  readonly id: Hex
  readonly groupID: Hex
  readonly payType: bigint
  readonly recipient: Address
  readonly amount: bigint
}

/** The chain's time, in unix seconds. */
const nowSeconds = Effect.map(Clock.currentTimeMillis, (now) => BigInt(Math.floor(now / 1000)))

/** `ChainUnreachable` while the test chain is set unreachable. */
export const unreachable = (state: TestChainState) =>
  state.behaviour.reachable ? undefined : new ChainUnreachable({ reason: "test chain" })

/** What the chain refuses of a request before anything is sent (the relayer's simulation), or at its block. */
const refusalOf = (
  state: TestChainState,
  request: Envelope,
  payments: ReadonlyArray<CarriedPayment>,
  at: bigint
): RequestError | undefined => {
  const account = state.accounts.get(request.to.toLowerCase())
  if (account === undefined) return new UnknownAccount({ account: request.to })
  if (state.spent.has(request.salt)) return new SaltReplayed({ salt: String(request.salt) })
  if (request.expires < at) return new RequestExpired({ expires: String(request.expires) })
  const signer = request.from.toLowerCase()
  const owns = account.owner?.toLowerCase() === signer
  const may = ["team_admin", "team_finance_admin"].some((role) => account.roles.get(role)?.has(signer) === true)
  if (!owns && !may) return new SignerNotAuthorised({ signer: request.from, account: request.to })
  const total = payments.reduce((sum, payment) => sum + payment.amount, 0n)
  const balance = state.balances.get(request.to.toLowerCase()) ?? 0n
  if (balance < total) {
    return new InsufficientBalance({
      account: request.to,
      token: testAddresses.token,
      balance: String(balance),
      amount: String(total)
    })
  }
  return undefined
}

/** Hands a transaction to the chain and waits for its block, as the test chain's behaviour says. */
const send = <A, E extends RequestError = never>(
  state: TestChainState,
  salt: bigint | undefined,
  apply: (block: bigint, hash: Hex) => A | E,
  progress: SettlementProgress | undefined
): Effect.Effect<A, E | ChainUnreachable | SendOutcomeUnknown> =>
  Effect.gen(function* () {
    const down = unreachable(state)
    if (down !== undefined) return yield* down
    const hash = nextHash(state)
    const outcome = yield* Deferred.make<A | E>()
    const pending: PendingTransaction = {
      hash,
      salt,
      apply: (block) => apply(block, hash) as Settlement | RequestError,
      done: (result) => Deferred.doneUnsafe(outcome, Effect.succeed(result as A | E))
    }
    state.pending.push(pending)
    state.sent.push({ hash, salt })
    if (progress?.onSent !== undefined) yield* progress.onSent(hash)
    if (state.behaviour.mining === "auto") mineBlock(state)
    if (state.behaviour.answers === "die") return yield* Effect.die(new Error("the sender died after sending"))
    if (state.behaviour.answers === "lost") {
      return yield* new SendOutcomeUnknown({ reason: "the answer was lost", transaction: hash })
    }
    const result = yield* Deferred.await(outcome).pipe(
      Effect.timeoutOption(Duration.millis(state.behaviour.receiptTimeoutMillis))
    )
    if (Option.isNone(result)) return yield* new SendOutcomeUnknown({ reason: "not mined in time", transaction: hash })
    const value = result.value
    if (typeof value === "object" && value !== null && "_tag" in value) return yield* Effect.fail(value as E)
    return value as A
  })

/** A signed request of payments: refused up front when the chain can tell, else sent and settled at its block. */
export const executePaymentsOn =
  (state: TestChainState) =>
  (request: Envelope, payments: ReadonlyArray<CarriedPayment>, progress: SettlementProgress | undefined) =>
    Effect.gen(function* () {
      const at = yield* nowSeconds
      const refused = refusalOf(state, request, payments, at)
      if (refused !== undefined) return yield* Effect.fail(refused)
      return yield* send<Settlement, RequestError>(
        state,
        request.salt,
        (block, hash) => {
          const refusedThen = refusalOf(state, request, payments, at)
          if (refusedThen !== undefined) return refusedThen
          const outcomes = payments.map((payment): PaymentOutcome => {
            if (payment.payType === 1n) move(state, request.to, payment.recipient, payment.amount, block)
            return {
              id: payment.id,
              groupID: payment.groupID,
              outcome: payment.payType === 1n ? "paid" : payment.payType === 2n ? "intent_registered" : "escrowed",
              token: testAddresses.token,
              recipient: payment.payType === 3n ? testAddresses.escrow : payment.recipient,
              amount: payment.amount
            }
          })
          const settlement: Settlement = {
            transactionHash: hash,
            blockNumber: block,
            gasUsed: 50_000n,
            payments: outcomes
          }
          state.spent.set(request.salt, { account: request.to.toLowerCase(), settlement })
          return settlement
        },
        progress
      )
    })

/** Signed role grants, granted at their block. */
export const executeRolesOn =
  (state: TestChainState) => (signed: Signed<RolesForwardRequest>, progress: SettlementProgress | undefined) =>
    Effect.gen(function* () {
      const refused = refusalOf(state, signed.request, [], yield* nowSeconds)
      if (refused !== undefined) return yield* Effect.fail(refused)
      return yield* send<RolesSettlement>(
        state,
        signed.request.salt,
        (block, hash) => {
          const account = state.accounts.get(signed.request.to.toLowerCase())
          for (const grant of signed.request.data) {
            const holders = account?.roles.get(grant.role) ?? new Set<string>()
            holders.add(grant.account.toLowerCase())
            account?.roles.set(grant.role, holders)
          }
          const settlement = { transactionHash: hash, blockNumber: block, gasUsed: 50_000n, payments: [] }
          state.spent.set(signed.request.salt, { account: signed.request.to.toLowerCase(), settlement })
          return { ...settlement, grants: signed.request.data }
        },
        progress
      )
    })

/** The service's revocation of `wallets`' authority on `account`: their roles, and the ownership. */
export const revokeOn = (state: TestChainState) => (account: Address, wallets: ReadonlyArray<Address>) =>
  Effect.gen(function* () {
    const known = state.accounts.get(account.toLowerCase())
    const held = (wallet: Address) =>
      [...(known?.roles.entries() ?? [])].filter(([, holders]) => holders.has(wallet.toLowerCase()))
    const owned = (wallet: Address) => known?.owner?.toLowerCase() === wallet.toLowerCase()
    const revoked = wallets.flatMap((wallet) => [
      ...held(wallet).map(([role]) => ({ role, account: wallet })),
      ...(owned(wallet) ? [{ role: "owner", account: wallet }] : [])
    ])
    const down = unreachable(state)
    if (down !== undefined) return yield* down
    if (known === undefined || revoked.length === 0) return { revoked: [] } satisfies Revocation
    return yield* send<Revocation>(
      state,
      undefined,
      (_block, hash) => {
        for (const wallet of wallets) {
          for (const [, holders] of held(wallet)) holders.delete(wallet.toLowerCase())
          if (owned(wallet)) known.owner = undefined
        }
        return { transactionHash: hash, revoked }
      },
      undefined
    )
  })
