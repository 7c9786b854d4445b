/**
 * The deposits ledger in MongoDB: the follower's cursor and lease in `chain_followers` (`_id` = its name, taken with
 * the lease mechanism, `Leases.ts`), deposits in `deposits` (`_id` = nanoid); a state change is one conditional update
 * with the follower's fencing token checked in the same transaction (the use case's unit of work, with its events,
 * when it runs in one), as the deposit machine allows.
 */
import type { BlockCursor } from "@svc/domain/chain"
import { Deposit, DepositLedger, DepositMachine } from "@svc/domain/deposit"
import { HexData } from "@svc/domain/Evm"
import type { FencingToken } from "@svc/domain/Lease"
import { Effect, Layer, Option, Schema } from "effect"
import type { Collection, Document, MongoClient } from "mongodb"
import * as Leases from "./Leases.ts"
import { MongoDatabase } from "./MongoDatabase.ts"
import { documentDecoder, recordDecoder } from "./MongoDocuments.ts"
import { inTransaction } from "./MongoTransaction.ts"

interface FollowerDocument extends Leases.LeaseFields {
  _id: string
  block?: number
  hash?: string
}

interface DepositDocument extends Deposit {
  _id: string
}

const depositOf: (doc: Document) => Deposit = recordDecoder("deposits", Deposit)

/** A follower's cursor: none before it read a block. */
const cursorOf = documentDecoder(
  "chain_followers",
  Schema.Struct({
    block: Schema.optional(Schema.NullOr(Schema.Number)),
    hash: Schema.optional(Schema.Union([HexData, Schema.Literal("")]))
  })
)

/** The collections the ledger keeps. */
interface DepositCollections {
  readonly client: MongoClient
  readonly followers: Collection<FollowerDocument>
  readonly deposits: Collection<DepositDocument>
}

/** Writes what was read: a known deposit kept, unless reorganised away or read again from another block. */
const record = (collections: DepositCollections, found: ReadonlyArray<Deposit>) =>
  inTransaction(collections.client, async (session) => {
    for (const deposit of found) {
      const stored = await collections.deposits.findOne({ _id: deposit.nanoid }, { session })
      const before = stored === null ? null : depositOf(stored)
      const again =
        before === null ||
        before.state === "reorged" ||
        (before.state === "pending" && before.block_hash !== deposit.block_hash)
      if (!again) continue
      const kept = before === null ? deposit : { ...deposit, created_at: before.created_at }
      await collections.deposits.replaceOne({ _id: deposit.nanoid }, kept, { session, upsert: true })
    }
  })

/** Takes (or keeps) the follower's lease; answers it with its cursor when held. */
const follow = async (
  followers: DepositCollections["followers"],
  lease: {
    readonly name: string
    readonly held: FencingToken | undefined
    readonly now: number
    readonly until: number
  }
) => {
  const taken = await Leases.takeOrKeep(followers, lease.name, lease)
  if (taken === undefined) return Option.none()
  const doc = await followers.findOne({ _id: lease.name })
  const cursor = doc === null ? {} : cursorOf(doc)
  return Option.some({
    lease: taken,
    cursor:
      cursor.block === undefined || cursor.block === null
        ? Option.none<BlockCursor>()
        : Option.some({ block: cursor.block, hash: cursor.hash ?? "" })
  })
}

/** The MongoDB deposits ledger. */
export const layer = Layer.effect(
  DepositLedger,
  Effect.gen(function* () {
    const { db, client } = yield* MongoDatabase
    const followers = db.collection<FollowerDocument>("chain_followers")
    const deposits = db.collection<DepositDocument>("deposits")
    yield* Effect.promise(() => deposits.createIndex({ team_nanoid: 1, block_number: -1, log_index: -1 }))
    yield* Effect.promise(() => deposits.createIndex({ state: 1, block_number: 1 }))
    const leases = Leases.on(followers)
    const collections: DepositCollections = { client, followers, deposits }
    return DepositLedger.of({
      follow: (name, held, now, until) => Effect.promise(() => follow(followers, { name, held, now, until })),
      unfollow: (name, token) => Effect.promise(() => leases.release({ _id: name }, token, {})).pipe(Effect.asVoid),
      // The deposits first (one transaction, and only when there are any), then the cursor (one conditional write): a
      // holder that dies between the two reads them again, which changes nothing. The cursor's collection is thus never
      // written in a transaction, so on jongodb its writes do not wait for commits (decision 0062).
      advance: (name, token, to, found) =>
        (found.length === 0
          ? Effect.succeed(true)
          : Effect.promise(async () => (await followers.findOne({ _id: name, lease_token: token })) !== null)
        ).pipe(
          Effect.tap((held) => (held && found.length > 0 ? record(collections, found) : Effect.void)),
          Effect.flatMap((held) =>
            held
              ? Effect.promise(() =>
                  leases.whileHeld({ _id: name }, token, { $set: { block: to.block, hash: to.hash } })
                )
              : Effect.succeed(false)
          )
        ),
      withinReorgWindow: (fromBlock) =>
        Effect.promise(() =>
          deposits
            .find({ $or: [{ state: "pending" }, { state: "confirmed", block_number: { $gte: fromBlock } }] })
            .sort({ block_number: 1, log_index: 1 })
            .toArray()
        ).pipe(Effect.map((docs) => docs.map(depositOf))),
      // The follower's token is written (`fenced_at`) in the same transaction as the move: a holder that took the
      // follower meanwhile writes that document too, so the two cannot both commit (decision 0090).
      transition: (id, { from, to, updatedAt, follower, token }) =>
        Effect.andThen(
          Effect.orDie(DepositMachine.move(from, to)),
          inTransaction(client, async (session) => {
            const fence = await followers.updateOne(
              { _id: follower, lease_token: token },
              { $set: { fenced_at: updatedAt } },
              { session }
            )
            if (fence.matchedCount !== 1) return false
            const moved = await deposits.updateOne(
              { _id: id, state: from },
              { $set: { state: to, updated_at: updatedAt } },
              { session }
            )
            return moved.modifiedCount === 1
          })
        ),
      list: ({ team, after, limit }) =>
        Effect.promise(() =>
          deposits
            .find({
              team_nanoid: team,
              ...(after === undefined
                ? {}
                : {
                    $or: [
                      { block_number: { $lt: after.block_number } },
                      { block_number: after.block_number, log_index: { $lt: after.log_index } }
                    ]
                  })
            })
            .sort({ block_number: -1, log_index: -1 })
            .limit(limit)
            .toArray()
        ).pipe(Effect.map((docs) => docs.map(depositOf)))
    })
  })
)
