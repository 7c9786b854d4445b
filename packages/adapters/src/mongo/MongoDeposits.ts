/**
 * The deposits ledger in MongoDB: the follower's cursor and lease in `chain_followers` (`_id` = its name, taken with
 * the lease mechanism, `Leases.ts`), deposits in `deposits` (`_id` = nanoid); a state change is one conditional update
 * (in the use case's unit of work, with its events, when it runs in one). The follower's writes name its fencing token
 * (decision 0090): the cursor moves only while the token is current (one conditional write); deposits, written in
 * transactions where the follower's document is not (decision 0097), are written after a read of the token.
 */
import type { BlockCursor } from "@svc/domain/chain"
import { Deposit, DepositLedger, DepositMachine } from "@svc/domain/deposit"
import { HexData } from "@svc/domain/Evm"
import type { FencingToken } from "@svc/domain/Lease"
import { Effect, Layer, Option, Schema } from "effect"
import type { Collection, Document } from "mongodb"
import * as Leases from "./Leases.ts"
import { MongoDatabase } from "./MongoDatabase.ts"
import { documentDecoder, recordDecoder } from "./MongoDocuments.ts"
import { toPort, tryMongo } from "./MongoErrors.ts"
import { inTransaction, type TransactionRunner, unitOptions } from "./MongoTransaction.ts"

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

/** The collections the ledger keeps, and the database's transactions. */
interface DepositCollections {
  readonly transaction: TransactionRunner
  readonly followers: Collection<FollowerDocument>
  readonly deposits: Collection<DepositDocument>
}

/** Writes what was read: a known deposit kept, unless reorganised away or read again from another block. */
const record = (collections: DepositCollections, found: ReadonlyArray<Deposit>) =>
  inTransaction(collections.transaction, (session) =>
    Effect.forEach(
      found,
      (deposit) =>
        Effect.gen(function* () {
          const stored = yield* tryMongo(() => collections.deposits.findOne({ _id: deposit.nanoid }, { session }))
          const before = stored === null ? null : depositOf(stored)
          const again =
            before === null ||
            before.state === "reorged" ||
            (before.state === "pending" && before.block_hash !== deposit.block_hash)
          if (!again) return
          const kept = before === null ? deposit : { ...deposit, created_at: before.created_at }
          yield* tryMongo(() =>
            collections.deposits.replaceOne({ _id: deposit.nanoid }, kept, { session, upsert: true })
          )
        }),
      { discard: true }
    )
  )

/** Takes (or keeps) the follower's lease: the lease and its cursor when held. */
const follow = (
  collections: DepositCollections,
  lease: {
    readonly name: string
    readonly held: FencingToken | undefined
    readonly now: number
    readonly until: number
  }
) =>
  Effect.gen(function* () {
    const { name, held, now, until } = lease
    const taken = yield* Leases.takeOrKeep(collections.followers, name, { held, now, until })
    if (taken === undefined) return Option.none()
    const doc = yield* tryMongo(() => collections.followers.findOne({ _id: name }))
    const cursor = doc === null ? {} : cursorOf(doc)
    return Option.some({
      lease: taken,
      cursor:
        cursor.block === undefined || cursor.block === null
          ? Option.none<BlockCursor>()
          : Option.some({ block: cursor.block, hash: cursor.hash ?? "" })
    })
  })

/** Whether `token` is still the follower's current one. */
const holds = (collections: DepositCollections, name: string, token: FencingToken) =>
  Effect.map(
    tryMongo(() => collections.followers.findOne({ _id: name, lease_token: token })),
    (held) => held !== null
  )

/** The MongoDB deposits ledger. */
export const layer = Layer.effect(
  DepositLedger,
  Effect.gen(function* () {
    const { db, transaction } = yield* MongoDatabase
    const followers = db.collection<FollowerDocument>("chain_followers")
    const deposits = db.collection<DepositDocument>("deposits")
    yield* toPort(
      tryMongo(() =>
        Promise.all([
          deposits.createIndex({ team_nanoid: 1, block_number: -1, log_index: -1 }),
          deposits.createIndex({ state: 1, block_number: 1 })
        ])
      )
    )
    const leases = Leases.on(followers)
    const collections: DepositCollections = { transaction, followers, deposits }
    return DepositLedger.of({
      follow: (name, held, now, until) => toPort(follow(collections, { name, held, now, until })),
      unfollow: (name, token) => leases.release({ _id: name }, token, {}).pipe(Effect.asVoid, toPort),
      // The deposits first (one transaction, and only when there are any), then the cursor (one conditional write): a
      // holder that dies between the two reads them again, which changes nothing.
      advance: (name, token, to, found) =>
        Effect.gen(function* () {
          if (found.length > 0) {
            if (!(yield* holds(collections, name, token))) return false
            yield* record(collections, found)
          }
          return yield* leases.whileHeld({ _id: name }, token, { $set: { block: to.block, hash: to.hash } })
        }).pipe(toPort),
      withinReorgWindow: (fromBlock) =>
        tryMongo(() =>
          deposits
            .find({ $or: [{ state: "pending" }, { state: "confirmed", block_number: { $gte: fromBlock } }] })
            .sort({ block_number: 1, log_index: 1 })
            .toArray()
        ).pipe(
          Effect.map((docs) => docs.map(depositOf)),
          toPort
        ),
      transition: (id, { from, to, updatedAt, follower, token }) =>
        Effect.andThen(
          Effect.orDie(DepositMachine.move(from, to)),
          Effect.gen(function* () {
            if (!(yield* holds(collections, follower, token))) return false
            const options = yield* unitOptions
            const moved = yield* tryMongo(() =>
              deposits.updateOne({ _id: id, state: from }, { $set: { state: to, updated_at: updatedAt } }, options)
            )
            return moved.modifiedCount === 1
          }).pipe(toPort)
        ),
      list: ({ team, after, limit }) =>
        tryMongo(() =>
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
        ).pipe(
          Effect.map((docs) => docs.map(depositOf)),
          toPort
        )
    })
  })
)
