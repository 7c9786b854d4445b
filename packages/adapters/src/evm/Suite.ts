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
import type { SendError, SuiteAddresses } from "@svc/domain/chain"
import { Effect } from "effect"
import { type Address, encodeDeployData, encodeFunctionData, type Hex, type PublicClient } from "viem"
import { writeError } from "./ChainRevert.ts"
import type { Relayer } from "./Relayer.ts"

const transact = Effect.fnUntraced(function* (
  client: PublicClient,
  relayer: Relayer,
  transaction: { readonly to?: Address; readonly data: Hex; readonly from?: Address }
) {
  const { from = relayer.address, ...call } = transaction
  const gas = yield* Effect.tryPromise({
    try: () => client.estimateGas({ account: from, ...call }),
    catch: writeError
  })
  const hash = yield* relayer.send({ ...call, from, gas: gas + gas / 5n })
  const receipt = yield* relayer.receipt(hash)
  if (receipt.status !== "success") return yield* Effect.fail(writeError(new Error(`transaction ${hash} reverted`)))
  return receipt
})

const deploy = (client: PublicClient, relayer: Relayer, data: Hex) =>
  transact(client, relayer, { data, from: relayer.address }).pipe(
    Effect.flatMap((receipt) =>
      receipt.contractAddress ? Effect.succeed(receipt.contractAddress) : Effect.fail(writeError("no contract"))
    )
  )

/** The deployed suite, and who may mint its test token. */
export interface DeployedSuite extends SuiteAddresses {
  readonly tokenOwner: Address
}

/** Makes `operators` operators of the escrow and the forwarder (`SvcOperated`), from their admin. */
export const setOperators = (
  client: PublicClient,
  relayer: Relayer,
  suite: Pick<SuiteAddresses, "escrow" | "forwarder">,
  admin: Address,
  operators: ReadonlyArray<Address>
) =>
  Effect.forEach(
    [suite.escrow, suite.forwarder],
    (to) =>
      transact(client, relayer, {
        to,
        from: admin,
        data: encodeFunctionData({ abi: svcEscrowAbi, functionName: "setOperators", args: [[...operators], true] })
      }),
    { discard: true }
  )

/**
 * Deploys a test USDC (owned by `tokenOwner`, default the relayer's first key), the e-mail escrow and the forwarder,
 * both administered by the relayer's first key, which then makes `operators` (default: every key of the relayer)
 * their operators: the keys that may release e-mail claims and end a removed member's authority (decision 0060).
 */
export const deploySuite: (
  client: PublicClient,
  relayer: Relayer,
  options?: { readonly tokenOwner?: Address; readonly operators?: ReadonlyArray<Address> }
) => Effect.Effect<DeployedSuite, SendError> = Effect.fn("deploySuite")(function* (
  client: PublicClient,
  relayer: Relayer,
  options: { readonly tokenOwner?: Address; readonly operators?: ReadonlyArray<Address> } = {}
): Effect.fn.Return<DeployedSuite, SendError> {
  const tokenOwner = options.tokenOwner ?? relayer.address
  const admin = relayer.address
  const [token, escrow] = yield* Effect.all(
    [
      deploy(client, relayer, encodeDeployData({ abi: testUsdcAbi, bytecode: testUsdcBytecode, args: [tokenOwner] })),
      deploy(client, relayer, encodeDeployData({ abi: svcEscrowAbi, bytecode: svcEscrowBytecode, args: [admin] }))
    ],
    { concurrency: 2 }
  )
  const forwarder = yield* deploy(
    client,
    relayer,
    encodeDeployData({ abi: svcAccountForwarderAbi, bytecode: svcAccountForwarderBytecode, args: [escrow, admin] })
  )
  yield* setOperators(client, relayer, { escrow, forwarder }, admin, options.operators ?? relayer.addresses)
  return { token, escrow, forwarder, tokenOwner }
})

/** Mints test USDC to `to`, sent by `owner`, the token's owner (default the relayer's first key, as `deploySuite`). */
export const mintTestUsdc: (
  client: PublicClient,
  relayer: Relayer,
  token: Address,
  to: Address,
  amount: bigint,
  owner?: Address
) => Effect.Effect<Hex, SendError> = Effect.fn("mintTestUsdc")(function* (
  client: PublicClient,
  relayer: Relayer,
  token: Address,
  to: Address,
  amount: bigint,
  owner: Address = relayer.address
): Effect.fn.Return<Hex, SendError> {
  const receipt = yield* transact(client, relayer, {
    to: token,
    from: owner,
    data: encodeFunctionData({ abi: testUsdcAbi, functionName: "mint", args: [to, amount] })
  })
  return receipt.transactionHash
})
