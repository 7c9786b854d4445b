/**
 * Roles on a team's account, granted on chain as a manager invite's acceptance grants them: the account's owner signs
 * the roles request (EIP-712), and it is executed through the forwarder. For tests whose member must pay on chain.
 */
import { ChainGateway, rolesRequestOf } from "@svc/domain/chain"
import { rolesTypedData, signableOf } from "@svc/domain/eip712"
import type { Role } from "@svc/domain/membership"
import { Clock, Effect } from "effect"
import { type Address, type Hex, keccak256, toHex } from "viem"
import type { PrivateKeyAccount } from "viem/accounts"

/** Grants `role` on `account` to `wallet`, signed by the account's `owner`; `salt` tells one grant from another. */
export const grantRoleOnChain = (
  account: Address,
  owner: PrivateKeyAccount,
  grant: { readonly role: Role; readonly wallet: Address; readonly salt: string }
) =>
  Effect.gen(function* () {
    const gateway = yield* ChainGateway
    const suite = yield* gateway.addresses
    const now = Math.floor((yield* Clock.currentTimeMillis) / 1000)
    const roles = rolesTypedData(
      { chainId: gateway.chainId, verifyingContract: suite.forwarder },
      {
        from: owner.address,
        to: account,
        salt: String(BigInt(keccak256(toHex(grant.salt)))),
        expires: String(now + 600)
      },
      [{ role: grant.role, account: grant.wallet }]
    )
    const signature = yield* Effect.promise((): Promise<Hex> => owner.signTypedData(signableOf(roles)))
    yield* gateway.executeRoles({ request: rolesRequestOf(roles.typed_data), signature })
  })
