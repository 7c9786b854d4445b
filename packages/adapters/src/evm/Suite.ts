/**
 * Deploys the settlement contracts (embedded mode and tests) and mints test USDC.
 */

import {
  svcAccountForwarderAbi,
  svcAccountForwarderBytecode,
  svcEscrowAbi,
  svcEscrowBytecode,
  testUsdcAbi,
  testUsdcBytecode
} from "@svc/contracts"
import type { ChainUnavailable, SettlementReverted, SuiteAddresses } from "@svc/domain/chain"
import { Effect } from "effect"
import { type Address, encodeDeployData, encodeFunctionData, type Hex, type PublicClient } from "viem"
import { writeError } from "./ChainRevert.ts"
import type { Relayer } from "./Relayer.ts"

const transact = Effect.fnUntraced(function* (
  client: PublicClient,
  relayer: Relayer,
  transaction: { readonly to?: Address; readonly data: Hex }
) {
  const gas = yield* Effect.tryPromise({
    try: () => client.estimateGas({ account: relayer.address, ...transaction }),
    catch: writeError
  })
  const hash = yield* relayer.send({ ...transaction, gas: gas + gas / 5n })
  const receipt = yield* relayer.receipt(hash)
  if (receipt.status !== "success") return yield* Effect.fail(writeError(new Error(`transaction ${hash} reverted`)))
  return receipt
})

const deploy = (client: PublicClient, relayer: Relayer, data: Hex) =>
  transact(client, relayer, { data }).pipe(
    Effect.flatMap((receipt) =>
      receipt.contractAddress ? Effect.succeed(receipt.contractAddress) : Effect.fail(writeError("no contract"))
    )
  )

/** The deployed suite, and who may mint its test token. */
export interface DeployedSuite extends SuiteAddresses {
  readonly tokenOwner: Address
}

/**
 * Deploys a test USDC (owned by `tokenOwner`, default the relayer), the e-mail escrow (owned by `escrowOwner`,
 * default the relayer, which releases claims) and the forwarder, whose revoker (the only caller that may end a
 * member's authority on an account, decision 0020) is `revoker`, default the relayer; all from the relayer.
 */
export const deploySuite: (
  client: PublicClient,
  relayer: Relayer,
  options?: { readonly tokenOwner?: Address; readonly escrowOwner?: Address; readonly revoker?: Address }
) => Effect.Effect<DeployedSuite, SettlementReverted | ChainUnavailable> = Effect.fn("deploySuite")(function* (
  client: PublicClient,
  relayer: Relayer,
  options: { readonly tokenOwner?: Address; readonly escrowOwner?: Address; readonly revoker?: Address } = {}
): Effect.fn.Return<DeployedSuite, SettlementReverted | ChainUnavailable> {
  const tokenOwner = options.tokenOwner ?? relayer.address
  const [token, escrow] = yield* Effect.all(
    [
      deploy(client, relayer, encodeDeployData({ abi: testUsdcAbi, bytecode: testUsdcBytecode, args: [tokenOwner] })),
      deploy(
        client,
        relayer,
        encodeDeployData({
          abi: svcEscrowAbi,
          bytecode: svcEscrowBytecode,
          args: [options.escrowOwner ?? relayer.address]
        })
      )
    ],
    { concurrency: 2 }
  )
  const forwarder = yield* deploy(
    client,
    relayer,
    encodeDeployData({
      abi: svcAccountForwarderAbi,
      bytecode: svcAccountForwarderBytecode,
      args: [escrow, options.revoker ?? relayer.address]
    })
  )
  return { token, escrow, forwarder, tokenOwner }
})

/** Mints test USDC to `to`; the relayer must own the token. */
export const mintTestUsdc: (
  client: PublicClient,
  relayer: Relayer,
  token: Address,
  to: Address,
  amount: bigint
) => Effect.Effect<Hex, SettlementReverted | ChainUnavailable> = Effect.fn("mintTestUsdc")(function* (
  client: PublicClient,
  relayer: Relayer,
  token: Address,
  to: Address,
  amount: bigint
): Effect.fn.Return<Hex, SettlementReverted | ChainUnavailable> {
  const receipt = yield* transact(client, relayer, {
    to: token,
    data: encodeFunctionData({ abi: testUsdcAbi, functionName: "mint", args: [to, amount] })
  })
  return receipt.transactionHash
})
