/**
 * Duplicate detection (issue 39, decision 0109): when a user's payout address or sign-in wallet is another user's
 * wallet or payout address, the pair is recorded once and `withdraw_account.duplicated_detected` goes to every team of
 * both users, in the unit of the change that revealed it. Teams whose `block_duplicates` is on then block the newer
 * account.
 */
import { Context, DateTime, Effect, Option } from "effect"
import type { WalletAddress } from "../Evm.ts"
import { EventOutbox } from "../event/EventOutbox.ts"
import { blockAutomatically } from "../membership/BlockMember.ts"
import { MembershipRepository } from "../membership/MembershipRepository.ts"
import { SettingsRepository } from "../team/SettingsRepository.ts"
import { TeamRepository } from "../team/TeamRepository.ts"
import { UnitOfWork } from "../UnitOfWork.ts"
import { useCaseLayer } from "../UseCases.ts"
import type { User } from "../user/User.ts"
import { UserRepository } from "../user/UserRepository.ts"
import { DuplicateAccounts, type DuplicatePair } from "./DuplicateAccounts.ts"
import { duplicateEventsOf } from "./PayoutEvents.ts"

/** Whether `a` is the older account: created first, or as old with the smaller id. */
const isOlder = (a: User, b: User) =>
  a.created_at < b.created_at || (a.created_at === b.created_at && a.nanoid < b.nanoid)

/**
 * The pairs `user` makes with the other users of `address` (their wallet or payout address), those not recorded
 * before recorded now with their events; answers the new pairs. Run it in the unit of the change.
 */
export const recordDuplicates = Effect.fn("Duplicates.record")(function* (user: User, address: WalletAddress) {
  const users = yield* UserRepository
  const byWallet = Option.toArray(yield* users.findByWallet(address))
  const byPayout = yield* users.findByPayoutAddress(address)
  const others = new Map([...byWallet, ...byPayout].filter((o) => o.nanoid !== user.nanoid).map((o) => [o.nanoid, o]))
  const detectedAt = DateTime.formatIso(yield* DateTime.now)
  const recorded: Array<DuplicatePair> = []
  for (const other of others.values()) {
    const [older, newer] = isOlder(other, user) ? [other, user] : [user, other]
    const pair: DuplicatePair = { older: older.nanoid, newer: newer.nanoid, address, detected_at: detectedAt }
    if (yield* DuplicateAccounts.use((d) => d.record(pair))) recorded.push(pair)
  }
  const events = (yield* Effect.forEach(recorded, duplicateEventsOf)).flat()
  if (events.length > 0) yield* EventOutbox.use((outbox) => outbox.append(events))
  return recorded
})

/**
 * Blocks the newer user of each pair in every team of theirs whose `block_duplicates` is on (after the unit: blocking
 * may ask the chain). A block that cannot be made now is logged; one the chain did not confirm finishes by recovery.
 */
export const blockNewerDuplicates = Effect.fn("Duplicates.blockNewer")(function* (pairs: ReadonlyArray<DuplicatePair>) {
  for (const pair of pairs) {
    const memberships = yield* MembershipRepository.use((m) => m.listByUser(pair.newer))
    for (const membership of memberships) {
      const settings = yield* SettingsRepository.use((s) => s.getTeam(membership.team_nanoid))
      if (!Option.exists(settings, (s) => s.block_duplicates)) continue
      const team = yield* TeamRepository.use((t) => t.findById(membership.team_nanoid))
      if (team._tag === "None" || team.value.status !== "active") continue
      const reason = `Shares ${pair.address} with ${pair.older} (duplicate accounts, block_duplicates)`
      yield* blockAutomatically(team.value, pair.newer, reason).pipe(
        Effect.catch((error) =>
          Effect.logWarning(`${pair.newer} was not blocked in ${membership.team_nanoid} as a duplicate`, error)
        )
      )
    }
  }
})

/** Records the duplicates `address` reveals for `user` in a unit of its own, then blocks the newer where teams ask. */
export const detectDuplicates = Effect.fn("Duplicates.detect")(function* (user: User, address: WalletAddress) {
  const pairs = yield* UnitOfWork.use((unit) => unit.run(recordDuplicates(user, address)))
  yield* blockNewerDuplicates(pairs)
})

/**
 * Duplicate detection for callers outside the payout use cases (sign-in's new users), on the ports it was built with.
 * Sign-in uses it when the deployment provides it.
 */
export class Duplicates extends Context.Service<
  Duplicates,
  { readonly detect: (user: User, address: WalletAddress) => Effect.Effect<void> }
>()("@svc/domain/payout/Duplicates") {
  /** On the storage ports, ids, randomness and the chain (a block revokes roles). */
  static readonly layer = useCaseLayer<Effect.Services<ReturnType<typeof detectDuplicates>>>()(Duplicates, (run) => ({
    detect: (user, address) => run(detectDuplicates(user, address))
  }))
}
