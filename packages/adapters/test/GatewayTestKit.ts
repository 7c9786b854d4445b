/**
 * What the tests of the viem gateway's actions (`src/evm/actions/*.test.ts`) and of its assembly share: a fresh suite on
 * the run's anvil deployed by a relayer of its own keys, the `Gateway` value the actions take (`makeGateway`, as
 * `ViemChainGateway.make` builds it), a funded team account, and requests signed as a wallet would sign them.
 */
import { randomBytes } from "node:crypto"
import {
  type ChainUnreachable,
  paymentRequestOf,
  paymentsRequestOf,
  rolesRequestOf,
  type SendError
} from "@svc/domain/chain"
import {
  type PaymentEntry,
  paymentsTypedData,
  paymentTypedData,
  type RoleGrant,
  rolesTypedData,
  signableOf,
  type TypedDataBundle
} from "@svc/domain/eip712"
import { Context, Effect, Layer } from "effect"
import { Wallet } from "ethers"
import { type Address, createTestClient, type Hex, http, type PublicClient, toHex } from "viem"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import { inject } from "vitest"
import { accountAddresses, createAccount } from "../src/evm/actions/accounts.ts"
import { type Gateway, makeGateway } from "../src/evm/actions/Gateway.ts"
import { balanceOf } from "../src/evm/actions/reads.ts"
import { makeChainClient } from "../src/evm/ChainClient.ts"
import { readError } from "../src/evm/ChainRevert.ts"
import { makeRelayer } from "../src/evm/Relayer.ts"
import type { BatchOptions } from "../src/evm/RequestBatcher.ts"
import { type DeployedSuite, deploySuite, mintTestUsdc } from "../src/evm/Suite.ts"

export const rpcUrl = inject("rpcUrl")
export const chainId = 42161
/** What the fixture's team account, and `freshTeam` unless told, start with: 1,000 USDC. */
export const startingBalance = 1_000_000_000n

/** A fresh suite on the run's anvil (its own relayer keys), the gateway on it, and a funded team account. */
export class GatewayFixture extends Context.Service<
  GatewayFixture,
  {
    readonly gateway: Gateway
    /** A client of its own, for what the tests read besides the actions. */
    readonly client: PublicClient
    readonly suite: DeployedSuite
    /** Every key of the gateway's relayer. */
    readonly relayers: ReadonlyArray<Address>
    /** Mints test USDC to `to`, from the suite's token owner. */
    readonly mint: (to: Address, amount: bigint) => Effect.Effect<Hex, SendError>
    /** Sets the ether balance of `to` (anvil's `anvil_setBalance`). */
    readonly setEtherBalance: (to: Address, wei: bigint) => Effect.Effect<void, ChainUnreachable>
    readonly ownerKey: Hex
    readonly team: Address
  }
>()("test/evm/GatewayFixture") {
  /**
   * Deploys the suite from a relayer of two fresh keys, both its operators with `operators` (keys another relayer will
   * use), and builds the gateway on them with `batch` (decision 0065; the default shares transactions).
   */
  static readonly layer = (
    options: { readonly operators?: ReadonlyArray<Address>; readonly batch?: BatchOptions } = {}
  ): Layer.Layer<GatewayFixture> =>
    Layer.effect(
      GatewayFixture,
      Effect.gen(function* () {
        const client = makeChainClient({ rpcUrl, chainId, pollingInterval: 10 })
        const anvil = createTestClient({ mode: "anvil", transport: http(rpcUrl) })
        const setEtherBalance = (to: Address, wei: bigint) =>
          Effect.tryPromise({ try: () => anvil.setBalance({ address: to, value: wei }), catch: readError })
        const accounts = [generatePrivateKey(), generatePrivateKey()].map((key) => privateKeyToAccount(key))
        yield* Effect.forEach(accounts, (account) => setEtherBalance(account.address, 10n ** 24n), { discard: true })
        const relayer = yield* makeRelayer(client, accounts)
        const suite = yield* deploySuite(client, relayer, {
          operators: [...relayer.addresses, ...(options.operators ?? [])]
        })
        const gateway = yield* makeGateway(client, relayer, suite, options.batch)
        const mint = (to: Address, amount: bigint) => mintTestUsdc(client, relayer, suite.token, to, amount)
        const ownerKey = generatePrivateKey()
        const { account: team } = yield* newAccount(gateway, privateKeyToAccount(ownerKey).address)
        yield* mint(team, startingBalance)
        return { gateway, client, suite, relayers: relayer.addresses, mint, setEtherBalance, ownerKey, team }
      }).pipe(Effect.orDie)
    )
}

export function bytes32(): Hex {
  return toHex(randomBytes(32))
}

/** A random salt for a request, as its typed data carries it. */
export const salt = () => BigInt(bytes32()).toString(10)
export const newWallet = () => privateKeyToAccount(generatePrivateKey()).address

/** Creates the account of `owner` (at a random salt unless given) through the actions. */
export const newAccount = (gateway: Gateway, owner: Address, accountSalt: Hex = bytes32()) =>
  Effect.flatMap(accountAddresses(gateway)(owner, accountSalt), (account) =>
    createAccount(gateway, account, owner, accountSalt)
  )

/** The chain's time, from the latest block. */
export const chainTime = Effect.gen(function* () {
  const { client } = yield* GatewayFixture
  const block = yield* Effect.promise(() => client.getBlock())
  return Number(block.timestamp)
})

/** The fields every request starts with, from the signer of `from`, expiring in 10 minutes unless told. */
export const envelope = (from: Hex, to: Address, options: { readonly expires?: number } = {}) =>
  Effect.gen(function* () {
    const now = yield* chainTime
    return {
      from: privateKeyToAccount(from).address,
      to,
      salt: salt(),
      expires: String(options.expires ?? now + 600)
    }
  })

/** An instant payment entry (pay type 1) unless `overrides` say otherwise. */
export const entry = (token: Address, recipient: Address, amount: bigint, overrides: Partial<PaymentEntry> = {}) =>
  ({
    id: bytes32(),
    groupID: bytes32(),
    payAtTime: "0",
    validMinutes: "0",
    payType: "1",
    token,
    recipient,
    amount: amount.toString(),
    data: "0x",
    ...overrides
  }) satisfies PaymentEntry

export type SignerKind = "viem" | "ethers"

/** Signs as a wallet would: viem's local account, or an ethers `Wallet` on the bundle as sent in JSON. */
export const sign = (bundle: TypedDataBundle, key: Hex, kind: SignerKind) =>
  Effect.promise((): Promise<Hex> => {
    if (kind === "viem") return privateKeyToAccount(key).signTypedData(signableOf(bundle))
    const json = JSON.parse(JSON.stringify(bundle))
    return new Wallet(key).signTypedData(json.domain, json.types, json.typed_data) as Promise<Hex>
  })

/** Where requests are signed for: the chain and the suite's forwarder, as the test knows them. */
export const location = GatewayFixture.useSync(({ suite }) => ({ chainId, verifyingContract: suite.forwarder }))

/** An instant payment (`CreatePaymentForwardRequest`) signed by `key` for `to`, expiring as `options` say. */
export const signedPayment = (
  key: Hex,
  to: Address,
  payment: PaymentEntry,
  kind: SignerKind = "viem",
  options: { readonly expires?: number } = {}
) =>
  Effect.gen(function* () {
    const bundle = paymentTypedData(yield* location, yield* envelope(key, to, options), payment)
    return { request: paymentRequestOf(bundle.typed_data), signature: yield* sign(bundle, key, kind) }
  })

export const signedPayments = (
  key: Hex,
  to: Address,
  payments: ReadonlyArray<PaymentEntry>,
  kind: SignerKind = "viem"
) =>
  Effect.gen(function* () {
    const bundle = paymentsTypedData(
      yield* location,
      yield* envelope(key, to),
      payments as [PaymentEntry, ...Array<PaymentEntry>]
    )
    return { request: paymentsRequestOf(bundle.typed_data), signature: yield* sign(bundle, key, kind) }
  })

export const signedRoles = (key: Hex, to: Address, grants: ReadonlyArray<RoleGrant>, kind: SignerKind = "viem") =>
  Effect.gen(function* () {
    const bundle = rolesTypedData(yield* location, yield* envelope(key, to), grants as [RoleGrant, ...Array<RoleGrant>])
    return { request: rolesRequestOf(bundle.typed_data), signature: yield* sign(bundle, key, kind) }
  })

/** What each of `holders` holds of the suite's USDC. */
export const balances = (...holders: ReadonlyArray<Address>) =>
  Effect.gen(function* () {
    const { gateway } = yield* GatewayFixture
    return yield* Effect.forEach(holders, (holder) => balanceOf(gateway, holder))
  })

/** A team account of its own, funded, for tests that spend or change roles. */
export const freshTeam = (amount: bigint = startingBalance) =>
  Effect.gen(function* () {
    const { gateway, mint } = yield* GatewayFixture
    const ownerKey = generatePrivateKey()
    const { account } = yield* newAccount(gateway, privateKeyToAccount(ownerKey).address)
    if (amount > 0n) yield* mint(account, amount)
    return { ownerKey, account }
  })
