/**
 * The port for stored users.
 */
import { Context, type Effect, type Option, Schema } from "effect"
import type { WalletAddress } from "../Evm.ts"
import type { UserId } from "../Ids.ts"
import type { StaleState } from "../StaleState.ts"
import type { User } from "./User.ts"

/** Another user already has this wallet. */
export class WalletTaken extends Schema.TaggedError<WalletTaken>()("WalletTaken", { wallet: Schema.String }) {}

/**
 * Users by id and by wallet. A wallet belongs to at most one user (the store enforces it, so two concurrent sign-ins
 * of a new wallet create one user). Wallets and e-mails are stored and compared lower-cased. Writes join the caller's
 * `UnitOfWork`. Storage failures are defects.
 */
export class UserRepository extends Context.Service<
  UserRepository,
  {
    readonly insert: (user: User) => Effect.Effect<void, WalletTaken>
    /** Records `email` (lower-cased) as the user's e-mail; an unknown user changes nothing. In a unit, with it. */
    readonly setEmail: (user: UserId, email: string) => Effect.Effect<void>
    /**
     * Records `names` as the user's first and last name when the user has neither (an invite's prefill); a user with
     * a name keeps it, whole. An unknown user changes nothing. In a unit, with it.
     */
    readonly fillNames: (
      user: UserId,
      names: { readonly first_name: string; readonly last_name: string }
    ) => Effect.Effect<void>
    readonly findById: (id: UserId) => Effect.Effect<Option.Option<User>>
    readonly findByIds: (ids: ReadonlyArray<UserId>) => Effect.Effect<ReadonlyArray<User>>
    readonly findByWallet: (wallet: string) => Effect.Effect<Option.Option<User>>
    /**
     * Moves the user's payout address from `from` to `to` (`null`: none) in one conditional write (decision 0108);
     * `StaleState` when it is no longer `from`, or there is no such user. In a unit, with it. Answers the user.
     */
    readonly setPayoutAddress: (
      user: UserId,
      from: WalletAddress | null,
      to: WalletAddress | null
    ) => Effect.Effect<User, StaleState>
    /** The users whose payout address is `address` (any case), oldest first. */
    readonly findByPayoutAddress: (address: string) => Effect.Effect<ReadonlyArray<User>>
  }
>()("@svc/domain/user/UserRepository") {}
