/**
 * Placing the settlement contracts on a real chain (`npm run deploy`, docs/operations.md): the escrow and the
 * forwarder (and, for a test chain, a test USDC) at deterministic addresses through the CREATE2 deployer that most
 * EVM chains hold (0x4e59…956C, Arbitrum One included). A CREATE2 address commits to the exact init code, that is to
 * this version's bytecode and its admin (the deploying account), so code found at the computed address is this
 * version: a second run finds the contracts and sends nothing but the operators it must add. A chain without the
 * deployer gets plain deployments instead. The deploying account then makes the relayer keys operators of both
 * (decision 0060).
 */
import { svcAccountForwarderBytecode, svcEscrowBytecode, testUsdcBytecode } from "@svc/contracts"
import type { SendError } from "@svc/domain/chain"
import { Effect } from "effect"
import {
  type Address,
  concat,
  encodeAbiParameters,
  getContractAddress,
  type Hex,
  keccak256,
  type PublicClient,
  toHex
} from "viem"
import { readError, writeError } from "./ChainRevert.ts"
import { type ContractsVersionMismatch, contractsVersion, isOperatorOf, requireVersion } from "./ContractsVersion.ts"
import type { Relayer } from "./Relayer.ts"
import { setOperators } from "./Suite.ts"

/** The deterministic deployment proxy (Arachnid's), at the same address on every chain that has it. */
export const create2Deployer: Address = "0x4e59b44847b379578588920cA78FbF26c0B4956C"

/** The CREATE2 salt of this service's contracts: one per contracts version, so a new version lands elsewhere. */
export const deploymentSalt: Hex = keccak256(toHex(`svc/contracts/${contractsVersion}`))

/** What to deploy: the relayer keys that act for the service, and whether to add a test token. */
export interface DeployOptions {
  /** Made operators of the escrow and the forwarder (release e-mail claims, end a removed member's authority). */
  readonly operators: ReadonlyArray<Address>
  /** Deploys a test USDC owned by this address (test chains only). */
  readonly testTokenOwner?: Address | undefined
}

/** One contract, placed or found. */
export interface Placed {
  readonly address: Address
  readonly deployed: boolean
}

/** The outcome: each contract's address and whether this run deployed it. */
export interface Deployment {
  readonly escrow: Placed
  readonly forwarder: Placed
  readonly token?: Placed | undefined
  /** True when the chain had the CREATE2 deployer (addresses are deterministic). */
  readonly deterministic: boolean
  /** The operators this run added (those already there are not sent again). */
  readonly operatorsAdded: ReadonlyArray<Address>
}

const address = (type: "address", value: Address) => encodeAbiParameters([{ type }], [value])

/** Deploys whatever of the suite is not on the chain yet, from `relayer`. */
export const deployOrFind = (
  client: PublicClient,
  relayer: Relayer,
  options: DeployOptions
): Effect.Effect<Deployment, SendError | ContractsVersionMismatch> =>
  Effect.gen(function* () {
    const codeAt = (at: Address) =>
      Effect.tryPromise({ try: () => client.getCode({ address: at }), catch: readError }).pipe(
        Effect.map((code) => code !== undefined && code !== "0x")
      )
    const deterministic = yield* codeAt(create2Deployer)
    const send = (to: Address | undefined, data: Hex) =>
      Effect.gen(function* () {
        const gas = yield* Effect.tryPromise({
          try: () => client.estimateGas({ account: relayer.address, ...(to === undefined ? {} : { to }), data }),
          catch: writeError
        })
        const hash = yield* relayer.send({
          ...(to === undefined ? {} : { to }),
          data,
          gas: gas + gas / 5n,
          carries: ["deploy"]
        })
        const receipt = yield* relayer.receipt(hash)
        if (receipt.status !== "success")
          return yield* Effect.fail(writeError(new Error(`deployment ${hash} reverted`)))
        return receipt
      })
    const place = (initCode: Hex) =>
      Effect.gen(function* () {
        if (!deterministic) {
          const receipt = yield* send(undefined, initCode)
          if (receipt.contractAddress == null) return yield* Effect.fail(writeError(new Error("no contract")))
          return { address: receipt.contractAddress, deployed: true } satisfies Placed
        }
        const at = getContractAddress({
          opcode: "CREATE2",
          from: create2Deployer,
          salt: deploymentSalt,
          bytecode: initCode
        })
        if (yield* codeAt(at)) return { address: at, deployed: false } satisfies Placed
        yield* send(create2Deployer, concat([deploymentSalt, initCode]))
        if (!(yield* codeAt(at))) return yield* Effect.fail(writeError(new Error(`no code at ${at} after deploying`)))
        return { address: at, deployed: true } satisfies Placed
      })
    // The deploying account administers both: the addresses commit to it.
    const admin = relayer.address
    const escrow = yield* place(concat([svcEscrowBytecode, address("address", admin)]))
    const forwarder = yield* place(
      concat([
        svcAccountForwarderBytecode,
        encodeAbiParameters([{ type: "address" }, { type: "address" }], [escrow.address, admin])
      ])
    )
    yield* requireVersion(client, forwarder.address, "the code found there is not this version's")
    const missing: Array<Address> = []
    for (const operator of options.operators) {
      const both = [
        yield* isOperatorOf(client, escrow.address, operator),
        yield* isOperatorOf(client, forwarder.address, operator)
      ]
      if (!both.every(Boolean)) missing.push(operator)
    }
    if (missing.length > 0) {
      yield* setOperators(client, relayer, { escrow: escrow.address, forwarder: forwarder.address }, admin, missing)
    }
    const token =
      options.testTokenOwner === undefined
        ? undefined
        : yield* place(concat([testUsdcBytecode, address("address", options.testTokenOwner)]))
    return { escrow, forwarder, token, deterministic, operatorsAdded: missing }
  })
