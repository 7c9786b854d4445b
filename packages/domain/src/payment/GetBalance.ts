/** The balance of an svc account (DESIGN §5): a team's (`balance.read`) or the caller's own, in cents. */
import { Effect, Schema } from "effect"
import { ChainGateway } from "../chain/ChainGateway.ts"
import type { Address } from "../Evm.ts"
import { TeamId, UserId } from "../Ids.ts"
import { InsufficientPermissions } from "../membership/MembershipErrors.ts"
import { TeamAccess } from "../membership/TeamAccess.ts"
import { teamAccountOf } from "../team/Team.ts"
import type { Caller } from "../user/Caller.ts"
import { userAccountOf } from "../user/UserAccount.ts"
import { UserNotFound } from "../user/UserNotFound.ts"
import { UserRepository } from "../user/UserRepository.ts"
import type { BalanceQuery, CurrencyBalance } from "./Balance.ts"
import { amountCentsOf } from "./Payment.ts"
import { BalanceNotFound } from "./PaymentErrors.ts"

/** An svc account and what it holds (GET /v2/balance `data`). */
export interface AccountBalance {
  readonly svc_account_address: Address
  readonly balances: ReadonlyArray<CurrencyBalance>
}

/** The svc account whose balance `nanoid` names, if the caller may see it. */
const accountOf = Effect.fn("Payments.accountOf")(function* (caller: Caller, nanoid: BalanceQuery["nanoid"]) {
  if (Schema.is(TeamId)(nanoid)) {
    const { team } = yield* TeamAccess.use((access) => access.authorize(caller, nanoid, "balance.read"))
    yield* ChainGateway.required
    const account = teamAccountOf(team)
    if (account === undefined) return yield* new BalanceNotFound({ nanoid, message: "The team has no svc account yet" })
    return account
  }
  if (Schema.is(UserId)(nanoid)) {
    if (caller.nanoid !== nanoid) return yield* new InsufficientPermissions({ message: "Only your own balance" })
    yield* ChainGateway.required
    const user = yield* UserRepository.use((u) => u.findById(nanoid))
    if (user._tag === "None") return yield* new UserNotFound({ user: nanoid })
    return yield* userAccountOf(yield* ChainGateway, user.value)
  }
  return yield* new BalanceNotFound({ nanoid, message: "Company accounts have no balance here" })
})

/** The account's address and its USD balance in cents (when USD is asked for, or nothing is). */
export const getBalance = Effect.fn("Payments.balance")(function* (caller: Caller, query: BalanceQuery) {
  const address = yield* accountOf(caller, query.nanoid)
  const units = yield* ChainGateway.use((chain) => chain.balanceOf(address)).pipe(Effect.orDie)
  const currencies = query.currencies?.split(",")
  const balances =
    currencies === undefined || currencies.includes("USD")
      ? [{ currency: "USD", balance_cents: amountCentsOf(units.toString()) }]
      : []
  return { svc_account_address: address, balances } satisfies AccountBalance
})
