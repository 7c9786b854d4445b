/**
 * Duplicate accounts (issue 39, decision 0109): two users found sharing an address, one's wallet or payout address being
 * the other's. Each pair is recorded once, so it is announced once.
 */
import { Context, type Effect, Schema } from "effect"
import { WalletAddress } from "../Evm.ts"
import { UserId } from "../Ids.ts"

/** A pair of users sharing `address`: the older account first (by creation time, then id), and when it was found. */
export const DuplicatePair = Schema.Struct({
  older: UserId,
  newer: UserId,
  address: WalletAddress,
  detected_at: Schema.String
})
export type DuplicatePair = typeof DuplicatePair.Type

/**
 * Pairs found, one per pair of users whatever their order or address. `record` keeps a pair unless one of the same
 * two users is kept already, and answers whether it kept it; of concurrent records of one pair exactly one does.
 * Writes join the caller's `UnitOfWork`. Storage failures are defects.
 */
export class DuplicateAccounts extends Context.Service<
  DuplicateAccounts,
  {
    readonly record: (pair: DuplicatePair) => Effect.Effect<boolean>
    /** Every pair with one of `users` in it. */
    readonly ofUsers: (users: ReadonlyArray<UserId>) => Effect.Effect<ReadonlyArray<DuplicatePair>>
  }
>()("@svc/domain/payout/DuplicateAccounts") {}

/** The users each of `users` is found sharing an address with, by user. */
export const duplicatesByUser = (pairs: ReadonlyArray<DuplicatePair>): ReadonlyMap<string, ReadonlyArray<string>> => {
  const others = new Map<string, Array<string>>()
  const add = (user: string, other: string) => {
    const list = others.get(user) ?? []
    if (!list.includes(other)) list.push(other)
    others.set(user, list)
  }
  for (const pair of pairs) {
    add(pair.older, pair.newer)
    add(pair.newer, pair.older)
  }
  return others
}
