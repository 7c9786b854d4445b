/**
 * The `ChainGateway` on viem: requests go through the `SvcAccountForwarder`, sent and paid for by the relayer. Each
 * operation is an action of `actions/` (viem's style: a function of the gateway and its parameters).
 */
import { ChainGateway, type ChainUnreachable, type SuiteAddresses, TransactionJournal } from "@svc/domain/chain"
import { type Config, Effect, Layer, Option, Redacted, type Scope } from "effect"
import type { PublicClient } from "viem"
import { privateKeyToAccount } from "viem/accounts"
import { accountAddresses, createAccount, ownerOf, revokeAuthority } from "./actions/accounts.ts"
import { executeIntent, executePayment, executePayments, executeRoles } from "./actions/executeRequests.ts"
import { makeGateway } from "./actions/Gateway.ts"
import {
  balanceOf,
  blockHash,
  blockNumber,
  hasRole,
  intentOf,
  isSaltUsed,
  readiness,
  settlementOfSalt
} from "./actions/reads.ts"
import { deposits, releaseEscrow, tokenTransfers } from "./actions/transfers.ts"
import { makeChainClient } from "./ChainClient.ts"
import { type ChainSettings, ChainSettingsConfig } from "./ChainSettings.ts"
import { type ContractsVersionMismatch, checkSuite } from "./ContractsVersion.ts"
import { makeRelayer, type Relayer } from "./Relayer.ts"
import type { BatchOptions } from "./RequestBatcher.ts"

/**
 * Builds the gateway on a client and a relayer for a deployed suite (contracts version 4): signed requests waiting at
 * the same time share transactions (`batch`, decision 0065; `makeGateway`). Each operation is an action of `actions/`.
 */
export const make: (
  client: PublicClient,
  relayer: Relayer,
  addresses: SuiteAddresses,
  options?: { readonly batch?: BatchOptions | undefined }
) => Effect.Effect<ChainGateway["Service"], ChainUnreachable, Scope.Scope> = Effect.fnUntraced(function* (
  client: PublicClient,
  relayer: Relayer,
  addresses: SuiteAddresses,
  options: { readonly batch?: BatchOptions | undefined } = {}
) {
  const gateway = yield* makeGateway(client, relayer, addresses, options.batch)
  const accountAddress = accountAddresses(gateway)
  return ChainGateway.of({
    chainId: gateway.chainId,
    addresses: Effect.succeed(addresses),
    accountAddress,
    createAccount: (owner, salt) =>
      Effect.flatMap(accountAddress(owner, salt), (account) => createAccount(gateway, account, owner, salt)),
    executePayments: (signed, progress) => executePayments(gateway, signed, progress),
    executePayment: (signed, progress) => executePayment(gateway, signed, progress),
    executeRoles: (signed, progress) => executeRoles(gateway, signed, progress),
    revokeAuthority: (account, wallets) => revokeAuthority(gateway, account, wallets),
    ownerOf: (account) => ownerOf(gateway, account),
    executeIntent: (account, id) => executeIntent(gateway, account, id),
    isSaltUsed: (salt) => isSaltUsed(gateway, salt),
    settlementOfSalt: (account, salt) => settlementOfSalt(gateway, account, salt),
    inFlightOfSalt: (salt) => relayer.inFlightCarrying(`salt:${salt}`),
    intent: (account, id) => intentOf(gateway, account, id),
    hasRole: (account, role, wallet) => hasRole(gateway, account, role, wallet),
    balanceOf: (holder, token) => balanceOf(gateway, holder, token),
    blockNumber: blockNumber(gateway),
    readiness: readiness(gateway),
    relayerHealth: relayer.health,
    releaseEscrow: (claimId, to, token) => releaseEscrow(gateway, claimId, to, token),
    tokenTransfers: (fromBlock, toBlock) => tokenTransfers(gateway, fromBlock, toBlock),
    blockHash: (number) => blockHash(gateway, number),
    deposits: (accounts, options) => deposits(gateway, accounts, options)
  })
})

/**
 * The gateway for explicit settings. Its relayer journals into the store's `TransactionJournal` when the context has
 * one (the server's does), else into one of this process only.
 */
export const layer = (
  settings: ChainSettings
): Layer.Layer<ChainGateway, ChainUnreachable | ContractsVersionMismatch> =>
  Layer.effect(
    ChainGateway,
    Effect.gen(function* () {
      const client = makeChainClient({ ...settings, rpcUrl: Redacted.value(settings.rpcUrl) })
      const journal = Option.getOrUndefined(yield* Effect.serviceOption(TransactionJournal))
      const accounts = settings.relayerKeys.map((key) => privateKeyToAccount(Redacted.value(key)))
      const relayer = yield* makeRelayer(client, accounts, {
        ...settings.relayer,
        journal
      })
      yield* checkSuite(
        client,
        settings.addresses,
        relayer.addresses,
        "deploy this version with `npm run deploy` and set FORWARDER_ADDRESS and ESCROW_ADDRESS to the addresses it prints"
      )
      return yield* make(client, relayer, settings.addresses, { batch: settings.batch })
    })
  )

/** The gateway configured from the environment (production). */
export const layerConfig: Layer.Layer<ChainGateway, ChainUnreachable | ContractsVersionMismatch | Config.ConfigError> =
  Layer.unwrap(Effect.map(ChainSettingsConfig, layer))
