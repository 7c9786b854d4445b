/** `GET /v2/user/withdraw_account` (decision 0108): where the caller's teams pay them, and their last change. */
import { Effect, Option } from "effect"
import { ChainGateway } from "../chain/ChainGateway.ts"
import type { Caller } from "../user/Caller.ts"
import type { User } from "../user/User.ts"
import { userAccountOf } from "../user/UserAccount.ts"
import { UserNotFound } from "../user/UserNotFound.ts"
import { UserRepository } from "../user/UserRepository.ts"
import type { PayoutAddressView, PayoutChange } from "./PayoutAddress.ts"
import { PayoutAddressStore } from "./PayoutAddressStore.ts"

/** The view of `user`'s payout address after `latest`, their last change (its report, when reported). */
export const payoutAddressViewOf = Effect.fn("PayoutAddresses.viewOf")(function* (
  user: User,
  latest: PayoutChange | undefined
) {
  const chain = yield* ChainGateway.present
  const account = chain._tag === "None" ? "" : yield* userAccountOf(chain.value, user)
  const address = user.payout_address ?? null
  return {
    user_nanoid: user.nanoid,
    wallet: user.wallet,
    address,
    svc_account: account,
    paid_to: address ?? account,
    change_nanoid: latest?.nanoid ?? null,
    changed_at: latest === undefined ? null : (latest.reported_at ?? latest.created_at)
  } satisfies PayoutAddressView
})

/** The caller's payout address: the address (`null`: none), where they are paid, and the last change. */
export const getPayoutAddress = Effect.fn("PayoutAddresses.get")(function* (caller: Caller) {
  const user = yield* UserRepository.use((u) => u.findById(caller.nanoid))
  if (user._tag === "None") return yield* new UserNotFound({ user: caller.nanoid })
  const latest = yield* PayoutAddressStore.use((store) => store.latestChange(caller.nanoid))
  return yield* payoutAddressViewOf(user.value, Option.getOrUndefined(latest))
})
