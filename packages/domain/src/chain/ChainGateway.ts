/**
 * The port to the settlement chain. Adapters: `@svc/adapters/evm` (viem, a relayer account that pays the gas).
 */
import { Context, Effect, Layer, Option, Stream } from "effect"
import type { Address, Hex } from "viem"
import {
  ChainAbsent,
  type ChainUnreachable,
  type EscrowClaimEmpty,
  type IntentError,
  type RequestError,
  type SendError
} from "./ChainError.ts"
import type { PaymentForwardRequest, PaymentsForwardRequest, RolesForwardRequest, Signed } from "./ForwardRequest.ts"
import type {
  AccountCreation,
  Deposit,
  EscrowRelease,
  IntentRecord,
  RelayerHealth,
  Revocation,
  RolesSettlement,
  Settlement,
  SuiteAddresses,
  TokenTransfer
} from "./Settlement.ts"
import { layerTest, type TestChain, type TestChainBehaviour } from "./TestChain.ts"

/** What an execution reports while it settles. */
export interface SettlementProgress {
  /**
   * Its transaction was journaled and handed to the node (`transaction`: that version's hash); the execution then waits
   * for it to be final (decision 0061). Called again with each replacement sent while it waits.
   */
  readonly onSent?: ((transaction: Hex) => Effect.Effect<void>) | undefined
}

/**
 * Settles signed requests on chain through the `SvcAccountForwarder`, relayed by the service (which pays the gas).
 *
 * Guarantees:
 * - a request executes at most once: its salt is spent on chain, and a replay fails with `SaltReplayed`;
 * - a batch is atomic: it settles every payment or none, and a refused request moves no token;
 * - a refused request is refused before any transaction is sent when the chain can tell (gas estimation), so
 *   refusals cost no gas; the error is always one of the domain's `ChainError`s, never a raw RPC error;
 * - a failure says whether anything was sent: `ChainUnreachable` when nothing can have been, `SendOutcomeUnknown`
 *   (with the journaled transaction) when something may be in flight (decision 0092);
 * - any number of concurrent calls, in any number of processes, share the relayer's keys without nonce collisions;
 * - a success means the transaction is included and succeeded; outcomes come from its events, in request order.
 */
export class ChainGateway extends Context.Service<
  ChainGateway,
  {
    /** The chain settled on (42161 for Arbitrum One, also in embedded mode). */
    readonly chainId: number
    /** The forwarder, escrow and settlement token of this deployment (an effect: an absent chain has none). */
    readonly addresses: Effect.Effect<SuiteAddresses>
    /** `true` only for `layerAbsent`'s gateway: this deployment has no chain. */
    readonly absent?: boolean | undefined
    /** The account `createAccount(owner, salt)` gives, without creating it or asking the chain. */
    readonly accountAddress: (owner: Address, salt: Hex) => Effect.Effect<Address>
    /** Creates the svc account of a team or user, owned by `owner`; idempotent (returns the existing one). */
    readonly createAccount: (owner: Address, salt: Hex) => Effect.Effect<AccountCreation, SendError>
    /** Executes a signed batch: pays, registers intents or escrows, per entry. */
    readonly executePayments: (
      signed: Signed<PaymentsForwardRequest>,
      progress?: SettlementProgress
    ) => Effect.Effect<Settlement, RequestError>
    /** Executes one signed instant payment. */
    readonly executePayment: (
      signed: Signed<PaymentForwardRequest>,
      progress?: SettlementProgress
    ) => Effect.Effect<Settlement, RequestError>
    /** Executes a signed manager request, granting its roles on the account. */
    readonly executeRoles: (
      signed: Signed<RolesForwardRequest>,
      progress?: SettlementProgress
    ) => Effect.Effect<RolesSettlement, RequestError>
    /**
     * Ends the authority of `wallets` on `account` through the forwarder's `revoke` (the relayer's keys must be
     * its operators): their roles, and the ownership when one is the owner. Sends nothing when none of them holds any, or
     * when the account does not exist on chain yet. Idempotent.
     */
    readonly revokeAuthority: (
      account: Address,
      wallets: ReadonlyArray<Address>
    ) => Effect.Effect<Revocation, SendError>
    /** Executes a registered intent once due and within its validity (anyone may; the relayer does). */
    readonly executeIntent: (account: Address, id: Hex) => Effect.Effect<Settlement, IntentError>
    /** Whether a request with this salt has executed: how to reconcile after `ChainUnreachable` while waiting. */
    readonly isSaltUsed: (salt: bigint) => Effect.Effect<boolean, ChainUnreachable>
    /**
     * The settlement of the request with this salt that executed on `account` (from the forwarder's
     * `RequestExecuted` events and that transaction's receipt, as `executePayments` answers it); `undefined` when
     * none did. How an execution whose answer was lost (a dead process, a replayed copy) is reconciled.
     */
    readonly settlementOfSalt: (
      account: Address,
      salt: bigint
    ) => Effect.Effect<Settlement | undefined, ChainUnreachable>
    /**
     * A transaction carrying the request of this salt that may still be mined (journaled, not failed, not final):
     * its newest version's hash, or `undefined` when none is. Recovery sends a request again only when the chain has
     * not spent its salt and nothing carrying it is in flight (decision 0093).
     */
    readonly inFlightOfSalt: (salt: bigint) => Effect.Effect<Hex | undefined>
    /** Reads an intent; `undefined` when the account has none with this id. */
    readonly intent: (account: Address, id: Hex) => Effect.Effect<IntentRecord | undefined, ChainUnreachable>
    /** The account's owner; `undefined` when the account does not exist on chain or its owner was revoked. */
    readonly ownerOf: (account: Address) => Effect.Effect<Address | undefined, ChainUnreachable>
    /** Whether `wallet` holds `role` on `account` (the owner holds none: it is authorised by ownership). */
    readonly hasRole: (account: Address, role: string, wallet: Address) => Effect.Effect<boolean, ChainUnreachable>
    /** The token balance of any address (the settlement token unless told). */
    readonly balanceOf: (holder: Address, token?: Address) => Effect.Effect<bigint, ChainUnreachable>
    /** The latest block's number. */
    readonly blockNumber: Effect.Effect<bigint, ChainUnreachable>
    /**
     * Whether the node serves this chain (readiness): it answers with the expected chain id, and the suite's contracts
     * have code. A node that answers but lost its chain (an anvil restarted empty) fails, naming what is missing.
     */
    readonly readiness: Effect.Effect<void, ChainUnreachable>
    /** Each relayer key's gas balance and what it has in flight (readiness and operators). */
    readonly relayerHealth: Effect.Effect<ReadonlyArray<RelayerHealth>, ChainUnreachable>
    /** Releases what the escrow holds under `claimId` to `to` (the relayer's keys must be the escrow's operators). */
    readonly releaseEscrow: (
      claimId: Hex,
      to: Address,
      token?: Address
    ) => Effect.Effect<EscrowRelease, EscrowClaimEmpty | SendError>
    /** Every `Transfer` of the settlement token in blocks `fromBlock` to `toBlock` (both included), in chain order. */
    readonly tokenTransfers: (
      fromBlock: bigint,
      toBlock: bigint
    ) => Effect.Effect<ReadonlyArray<TokenTransfer>, ChainUnreachable>
    /** The hash of the canonical block `number`; `undefined` when the chain has no such block (yet). */
    readonly blockHash: (number: bigint) => Effect.Effect<Hex | undefined, ChainUnreachable>
    /** Transfers of the settlement token into any of `accounts`, as they are mined (from `fromBlock` if given). */
    readonly deposits: (
      accounts: ReadonlyArray<Address>,
      options?: { readonly fromBlock?: bigint }
    ) => Stream.Stream<Deposit, ChainUnreachable>
  }
>()("@svc/domain/chain/ChainGateway") {
  /**
   * The gateway of a deployment without a chain (decision 0078): `chainId` is the configured one, and everything else
   * dies with `ChainAbsent`, which answers 501 `NOT_IMPLEMENTED`. The routes are the same with or without a chain;
   * what needs one is refused where it first asks for it, after the caller's permission was checked.
   */
  static readonly layerAbsent = (chainId: number): Layer.Layer<ChainGateway> =>
    Layer.succeed(ChainGateway, absentGateway(chainId))

  /**
   * A chain in memory and its controls (`TestChain`, decision 0095): use-case tests of executions, recovery and the
   * deposit follower run on it without a node, under `TestClock`.
   */
  static readonly layerTest = (
    options: Partial<TestChainBehaviour> & { readonly chainId?: number } = {}
  ): Layer.Layer<ChainGateway | TestChain> => layerTest(options)

  /** Nothing, when this deployment has a chain; without one, dies with `ChainAbsent` (501): ask before any write. */
  static readonly required: Effect.Effect<void, never, ChainGateway> = Effect.asVoid(
    ChainGateway.use((chain) => chain.addresses)
  )

  /** This deployment's chain: `None` without one (no gateway, or `layerAbsent`'s). */
  static readonly present: Effect.Effect<Option.Option<ChainGateway["Service"]>> = Effect.map(
    Effect.serviceOption(ChainGateway),
    Option.filter((chain) => chain.absent !== true)
  )
}

/** Each operation of the absent gateway: a defect naming what was asked. */
const absent = (operation: string) => Effect.die(new ChainAbsent({ operation }))

const absentGateway = (chainId: number): ChainGateway["Service"] => ({
  chainId,
  absent: true,
  addresses: absent("addresses"),
  accountAddress: () => absent("accountAddress"),
  createAccount: () => absent("createAccount"),
  executePayments: () => absent("executePayments"),
  executePayment: () => absent("executePayment"),
  executeRoles: () => absent("executeRoles"),
  revokeAuthority: () => absent("revokeAuthority"),
  executeIntent: () => absent("executeIntent"),
  isSaltUsed: () => absent("isSaltUsed"),
  settlementOfSalt: () => absent("settlementOfSalt"),
  inFlightOfSalt: () => absent("inFlightOfSalt"),
  intent: () => absent("intent"),
  ownerOf: () => absent("ownerOf"),
  hasRole: () => absent("hasRole"),
  balanceOf: () => absent("balanceOf"),
  blockNumber: absent("blockNumber"),
  readiness: absent("readiness"),
  relayerHealth: absent("relayerHealth"),
  releaseEscrow: () => absent("releaseEscrow"),
  tokenTransfers: () => absent("tokenTransfers"),
  blockHash: () => absent("blockHash"),
  deposits: () => Stream.die(new ChainAbsent({ operation: "deposits" }))
})
