/**
 * Who asks: the signed-in user. Use cases take the caller as an argument; how it was authenticated is the adapter's
 * business.
 */
import type { WalletAddress } from "../Evm.ts"
import type { UserId } from "../Ids.ts"

/** The signed-in user and the wallet that signed in. */
export interface Caller {
  readonly nanoid: UserId
  readonly wallet: WalletAddress
}
