/**
 * Where the team pays a user: the user's own svc account, deployed by the forwarder with CREATE2 from the user's
 * wallet, so its address is known (and can receive tokens) before it exists.
 */
import type { ChainGateway } from "../chain/ChainGateway.ts"
import { svcAccountSaltOf } from "../chain/SvcAccountSalt.ts"
import type { User } from "./User.ts"

/** The svc account address of `user` on `chain`. */
export const userAccountOf = (chain: ChainGateway["Service"], user: Pick<User, "nanoid" | "wallet">) =>
  chain.accountAddress(user.wallet, svcAccountSaltOf(user.nanoid))
