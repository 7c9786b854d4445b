/**
 * The port for payout addresses' proofs and changes (decision 0108). The current address itself is the user's
 * (`UserRepository.setPayoutAddress`), so every read of a user carries it.
 */
import { Context, type Effect, type Option } from "effect"
import type { PayoutChangeId, UserId } from "../Ids.ts"
import type { IssuedPayoutProof, PayoutChange } from "./PayoutAddress.ts"

/**
 * Proofs issued and not yet used, one per user (a new one replaces the last), and every change, newest last.
 * `consumeProof` takes a proof once: of concurrent takers of one salt exactly one succeeds. `markReported` marks a
 * change once, and only with its token's hash. Writes join the caller's `UnitOfWork`. Storage failures are defects.
 */
export class PayoutAddressStore extends Context.Service<
  PayoutAddressStore,
  {
    /** Keeps `proof` as the user's proof to sign, replacing any earlier one; it expires at `expiresAt` (unix s). */
    readonly issueProof: (proof: IssuedPayoutProof, expiresAt: number) => Effect.Effect<void>
    readonly findProof: (user: UserId) => Effect.Effect<Option.Option<IssuedPayoutProof>>
    /** Takes the user's proof of `salt`, once; false when there is none (used, replaced, or never issued). */
    readonly consumeProof: (user: UserId, salt: string) => Effect.Effect<boolean>
    readonly recordChange: (change: PayoutChange) => Effect.Effect<void>
    readonly findChange: (id: PayoutChangeId) => Effect.Effect<Option.Option<PayoutChange>>
    /** The user's last change, reported or not. */
    readonly latestChange: (user: UserId) => Effect.Effect<Option.Option<PayoutChange>>
    /** Marks the change reported at `at` (ISO 8601) when `tokenHash` is its token's and it is not yet; true if so. */
    readonly markReported: (id: PayoutChangeId, tokenHash: string, at: string) => Effect.Effect<boolean>
  }
>()("@svc/domain/payout/PayoutAddressStore") {}
