/**
 * The version of the settlement contracts a server works with (`CONTRACTS_VERSION` of each, decision 0060), and the
 * check that the suite it is pointed at is that version and lets its relayer keys act for the service.
 */
import { svcAccountForwarderAbi } from "@svc/contracts"
import type { ChainUnreachable, SuiteAddresses } from "@svc/domain/chain"
import { Effect, Schema } from "effect"
import {
  type Address,
  BaseError,
  ContractFunctionRevertedError,
  ContractFunctionZeroDataError,
  type PublicClient
} from "viem"
import { readError } from "./ChainRevert.ts"

/**
 * The contracts version this server deploys: 2 made the service's powers a role of every relayer key; 3 added the
 * forwarder's `executeEach` (many signed requests in one transaction, decision 0065); 4 its packed immediate
 * payments (`executePacked`, decision 0082).
 */
export const contractsVersion = 4n

/** The suite at the configured addresses is of another version: one line saying what to do. */
export class ContractsVersionMismatch extends Schema.TaggedError<ContractsVersionMismatch>()(
  "ContractsVersionMismatch",
  { message: Schema.String }
) {}

/** The forwarder's `CONTRACTS_VERSION`; 1 for a forwarder from before versions (it has no such function). */
export const versionAt = (client: PublicClient, forwarder: Address): Effect.Effect<bigint, ChainUnreachable> =>
  Effect.tryPromise({
    try: () =>
      client.readContract({ address: forwarder, abi: svcAccountForwarderAbi, functionName: "CONTRACTS_VERSION" }),
    catch: (error) => error
  }).pipe(
    Effect.catch((error) => {
      const reverted =
        error instanceof BaseError &&
        error.walk(
          (cause) => cause instanceof ContractFunctionRevertedError || cause instanceof ContractFunctionZeroDataError
        ) !== null
      return reverted ? Effect.succeed(1n) : Effect.fail(readError(error))
    })
  )

/** Whether `operator` is an operator of `contract` (the escrow or the forwarder, `SvcOperated`). */
export const isOperatorOf = (
  client: PublicClient,
  contract: Address,
  operator: Address
): Effect.Effect<boolean, ChainUnreachable> =>
  Effect.tryPromise({
    try: () =>
      client.readContract({
        address: contract,
        abi: svcAccountForwarderAbi,
        functionName: "isOperator",
        args: [operator]
      }),
    catch: readError
  })

/** Refuses a forwarder of another contracts version; `hint` says what to do about it. */
export const requireVersion = (
  client: PublicClient,
  forwarder: Address,
  hint: string
): Effect.Effect<void, ContractsVersionMismatch | ChainUnreachable> =>
  Effect.flatMap(versionAt(client, forwarder), (version) =>
    version === contractsVersion
      ? Effect.void
      : Effect.fail(
          new ContractsVersionMismatch({
            message: `the forwarder at ${forwarder} is contracts version ${version}, and this server needs version ${contractsVersion}: ${hint}`
          })
        )
  )

/**
 * Refuses a forwarder of another contracts version (`hint` says what to do about it), and warns of each relayer key
 * that is not an operator of the forwarder and the escrow: removals and e-mail claims it sends would be refused.
 */
export const checkSuite: (
  client: PublicClient,
  addresses: SuiteAddresses,
  relayers: ReadonlyArray<Address>,
  hint: string
) => Effect.Effect<void, ContractsVersionMismatch | ChainUnreachable> = Effect.fnUntraced(function* (
  client: PublicClient,
  addresses: SuiteAddresses,
  relayers: ReadonlyArray<Address>,
  hint: string
): Effect.fn.Return<void, ContractsVersionMismatch | ChainUnreachable> {
  const code = yield* Effect.tryPromise({
    try: () => client.getCode({ address: addresses.forwarder }),
    catch: readError
  })
  // No forwarder at all is a readiness matter (`/ready` names it), not a version.
  if (code === undefined || code === "0x") return
  yield* requireVersion(client, addresses.forwarder, hint)
  const pairs = [addresses.forwarder, addresses.escrow].flatMap((contract) =>
    relayers.map((relayer) => ({ contract, relayer }))
  )
  yield* Effect.forEach(
    pairs,
    ({ contract, relayer }) =>
      Effect.flatMap(isOperatorOf(client, contract, relayer), (operator) =>
        operator
          ? Effect.void
          : Effect.logWarning(
              `relayer ${relayer} is not an operator of ${contract}: removals and e-mail claims it sends will be refused; run \`npm run deploy -- --operator ${relayer} …\` with the suite's admin key`
            )
      ),
    { concurrency: "unbounded", discard: true }
  )
})
