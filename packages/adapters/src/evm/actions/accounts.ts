/**
 * svc accounts: their addresses (computed, not asked), their creation through the forwarder, their owner, and the end
 * of a removed member's authority on them.
 */
import { svcAccountAbi, svcAccountBytecode, svcAccountForwarderAbi } from "@svc/contracts"
import type { AccountCreation, Revocation } from "@svc/domain/chain"
import { Effect } from "effect"
import {
  type Address,
  concat,
  encodeAbiParameters,
  getContractAddress,
  type Hex,
  isAddressEqual,
  keccak256,
  parseEventLogs,
  toHex,
  zeroAddress
} from "viem"
import { writeError } from "../ChainRevert.ts"
import { forwarderAbi, type Gateway, read, submit } from "./Gateway.ts"
import { hasRole } from "./reads.ts"

/**
 * The address `createAccount(owner, salt)` deploys to, computed rather than asked of the forwarder, so listing 500
 * members costs no calls; and remembered, since hashing the account's 5 KB init code takes about 0.4 ms.
 */
export const accountAddresses = (gateway: Gateway) => {
  const known = new Map<string, Address>()
  return (owner: Address, salt: Hex) =>
    Effect.sync(() => {
      const key = `${owner.toLowerCase()}:${salt}`
      const found = known.get(key)
      if (found !== undefined) return found
      const forwarder = gateway.addresses.forwarder
      const account = getContractAddress({
        opcode: "CREATE2",
        from: forwarder,
        salt: keccak256(encodeAbiParameters([{ type: "address" }, { type: "bytes32" }], [owner, salt])),
        bytecode: concat([
          svcAccountBytecode,
          encodeAbiParameters([{ type: "address" }, { type: "address" }], [forwarder, owner])
        ])
      })
      if (known.size >= 100_000) known.clear()
      known.set(key, account)
      return account
    })
}

/** Whether the forwarder created `account`. */
const exists = (gateway: Gateway, account: Address) =>
  read<boolean>(gateway, {
    address: gateway.addresses.forwarder,
    abi: svcAccountForwarderAbi,
    functionName: "isAccount",
    args: [account]
  })

/** Creates `account` for `owner` unless it exists; a concurrent creation that wins the CREATE2 race is as good. */
export const createAccount = Effect.fn("ChainGateway.createAccount")(function* (
  gateway: Gateway,
  account: Address,
  owner: Address,
  salt: Hex
) {
  if (yield* exists(gateway, account)) return { account, owner } satisfies AccountCreation
  return yield* submit(
    gateway,
    { address: gateway.addresses.forwarder, abi: forwarderAbi, functionName: "createAccount", args: [owner, salt] },
    writeError,
    [`account:${account}`],
    account
  ).pipe(
    Effect.map((receipt): AccountCreation => ({ account, owner, transactionHash: receipt.transactionHash })),
    Effect.catch((error) =>
      Effect.flatMap(exists(gateway, account), (created) =>
        created ? Effect.succeed({ account, owner } satisfies AccountCreation) : Effect.fail(error)
      )
    )
  )
})

/** The owner of `account`; `undefined` when there is no such account, or its owner was revoked. */
export const ownerOf = Effect.fn("ChainGateway.ownerOf")(function* (gateway: Gateway, account: Address) {
  if (!(yield* exists(gateway, account))) return undefined
  const owner = yield* read<Address>(gateway, { address: account, abi: svcAccountAbi, functionName: "owner", args: [] })
  return isAddressEqual(owner, zeroAddress) ? undefined : owner
})

const managerRoles = ["team_admin", "team_finance_admin", "team_viewer"] as const

/** Whether any of `wallets` holds authority on `account` (ownership or a manager role). */
const holdsAuthority = (gateway: Gateway, account: Address, wallets: ReadonlyArray<Address>) =>
  Effect.gen(function* () {
    const owner = yield* read<Address>(gateway, {
      address: account,
      abi: svcAccountAbi,
      functionName: "owner",
      args: []
    })
    const held = yield* Effect.forEach(
      wallets,
      (wallet) =>
        Effect.map(
          Effect.forEach(managerRoles, (role) => hasRole(gateway, account, role, wallet)),
          (roles) => isAddressEqual(owner, wallet) || roles.some((has) => has)
        ),
      { concurrency: 4 }
    )
    return held.some((has) => has)
  })

/**
 * Ends the authority of `wallets` on `account` (their roles, and ownership for the owner). Read first, so removing a
 * member with no authority on chain (most of them) costs no transaction.
 */
export const revokeAuthority = Effect.fn("ChainGateway.revokeAuthority")(function* (
  gateway: Gateway,
  account: Address,
  wallets: ReadonlyArray<Address>
) {
  if (wallets.length === 0 || !(yield* exists(gateway, account))) return { revoked: [] } satisfies Revocation
  if (!(yield* holdsAuthority(gateway, account, wallets))) return { revoked: [] } satisfies Revocation
  const receipt = yield* submit(
    gateway,
    { address: gateway.addresses.forwarder, abi: forwarderAbi, functionName: "revoke", args: [account, wallets] },
    writeError,
    [`account:${account}`, ...wallets.map((wallet) => `wallet:${wallet}`)],
    account
  )
  const revoked = parseEventLogs({
    abi: svcAccountAbi,
    logs: receipt.logs.filter((log) => isAddressEqual(log.address, account))
  }).flatMap((log) => {
    if (log.eventName === "OwnerRevoked") return [{ role: "owner", account: log.args.owner }]
    if (log.eventName !== "RoleRevoked") return []
    const role = managerRoles.find((name) => keccak256(toHex(name)) === log.args.roleHash)
    return [{ role: role ?? log.args.roleHash, account: log.args.account }]
  })
  return { transactionHash: receipt.transactionHash, revoked } satisfies Revocation
})
