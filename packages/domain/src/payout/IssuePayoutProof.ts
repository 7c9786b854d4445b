/**
 * `POST /v2/user/withdraw_account` (decision 0108): the typed data that proves a payout address, for the address and
 * the caller's wallet both to sign. It names the caller and the address, is issued for the caller's wallet and their
 * own svc account, and replaces any proof issued to them before.
 */
import { Effect } from "effect"
import { ChainGateway } from "../chain/ChainGateway.ts"
import { makePayoutAddressTypedData } from "../eip712/TypedDataBuilder.ts"
import type { Caller } from "../user/Caller.ts"
import { userAccountOf } from "../user/UserAccount.ts"
import { UserNotFound } from "../user/UserNotFound.ts"
import { UserRepository } from "../user/UserRepository.ts"
import type { IssuePayoutProofBody } from "./PayoutAddress.ts"
import { PayoutAddressStore } from "./PayoutAddressStore.ts"
import { InvalidPayoutAddress } from "./PayoutErrors.ts"

/**
 * Issues the proof of `body.address` for the caller (501 without a chain: the proof is bound to it).
 *
 * @example
 * const bundle = yield* issuePayoutProof(caller, { address })
 * // the address and the caller's wallet each sign `bundle` unchanged, then PUT /v2/user/withdraw_account
 */
export const issuePayoutProof = Effect.fn("PayoutAddresses.issueProof")(function* (
  caller: Caller,
  body: IssuePayoutProofBody
) {
  const chain = yield* ChainGateway
  const suite = yield* chain.addresses
  const ours = [suite.forwarder, suite.escrow, suite.token].map((address) => address.toLowerCase())
  if (ours.includes(body.address)) {
    return yield* new InvalidPayoutAddress({ address: body.address, reason: "it is one of the service's contracts" })
  }
  const user = yield* UserRepository.use((u) => u.findById(caller.nanoid))
  if (user._tag === "None") return yield* new UserNotFound({ user: caller.nanoid })
  const account = yield* userAccountOf(chain, user.value)
  const bundle = yield* makePayoutAddressTypedData(
    { chainId: chain.chainId, verifyingContract: suite.forwarder },
    { from: caller.wallet, to: account },
    { user: caller.nanoid, payoutAddress: body.address }
  )
  yield* PayoutAddressStore.use((store) =>
    store.issueProof(
      { user_nanoid: caller.nanoid, salt: bundle.typed_data.salt, address: body.address, bundle },
      Number(bundle.typed_data.expires)
    )
  )
  return bundle
})
