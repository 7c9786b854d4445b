/**
 * Payout addresses' proofs (`payout_proofs`, `_id` = user) and changes (`payout_changes`, `_id` = nanoid) and duplicate
 * pairs (`duplicate_pairs`, `_id` = the two user ids in order) on MongoDB (decisions 0108, 0109). Taking a proof,
 * marking a report and recording a pair are each one conditional single-document write.
 */
import type { UserId } from "@svc/domain/Ids"
import {
  DuplicateAccounts,
  DuplicatePair,
  IssuedPayoutProof,
  PayoutAddressStore,
  PayoutChange
} from "@svc/domain/payout"
import { Effect, Layer, Option } from "effect"
import type { ClientSession, Document } from "mongodb"
import { MongoDatabase } from "./MongoDatabase.ts"
import { recordDecoder } from "./MongoDocuments.ts"
import { toPort, tryMongo } from "./MongoErrors.ts"
import { unitOptions } from "./MongoTransaction.ts"

type Keyed = Document & { _id: string }

const proofOf = recordDecoder("payout_proofs", IssuedPayoutProof)
const changeOf = recordDecoder("payout_changes", PayoutChange)
const pairOf = recordDecoder("duplicate_pairs", DuplicatePair)

/** A write with the session of the caller's unit of work, or alone outside one; its failures the port's. */
const write = <A>(work: (options: { readonly session?: ClientSession }) => Promise<A>) =>
  toPort(Effect.flatMap(unitOptions, (options) => tryMongo(() => work(options))))

/** A read, its failures the port's. */
const read = <A>(work: () => Promise<A>) => toPort(tryMongo(work))

const optionOf =
  <A>(decode: (doc: Document) => A) =>
  (doc: Document | null): Option.Option<A> =>
    doc === null ? Option.none() : Option.some(decode(doc))

/** The MongoDB payout address store. */
export const payoutAddresses = Layer.effect(
  PayoutAddressStore,
  Effect.gen(function* () {
    const { db } = yield* MongoDatabase
    const proofs = db.collection<Keyed>("payout_proofs")
    const changes = db.collection<Keyed>("payout_changes")
    yield* read(() => changes.createIndex({ user_nanoid: 1, created_at: -1, _id: -1 }))
    return PayoutAddressStore.of({
      issueProof: (proof, expiresAt) =>
        write((options) =>
          proofs.replaceOne(
            { _id: proof.user_nanoid },
            { ...proof, expires_at: expiresAt },
            { ...options, upsert: true }
          )
        ).pipe(Effect.asVoid),
      findProof: (user) => read(() => proofs.findOne({ _id: user })).pipe(Effect.map(optionOf(proofOf))),
      consumeProof: (user, salt) =>
        write((options) => proofs.deleteOne({ _id: user, salt }, options)).pipe(
          Effect.map((deleted) => deleted.deletedCount === 1)
        ),
      recordChange: (change) =>
        write((options) => changes.insertOne({ _id: change.nanoid, ...change }, options)).pipe(Effect.asVoid),
      findChange: (id) => read(() => changes.findOne({ _id: id })).pipe(Effect.map(optionOf(changeOf))),
      latestChange: (user) =>
        read(() => changes.find({ user_nanoid: user }).sort({ created_at: -1, _id: -1 }).limit(1).toArray()).pipe(
          Effect.map((docs) => optionOf(changeOf)(docs[0] ?? null))
        ),
      markReported: (id, hash, at) =>
        write((options) =>
          changes.updateOne(
            { _id: id, report_token_hash: hash, reported_at: null },
            { $set: { reported_at: at } },
            options
          )
        ).pipe(Effect.map((updated) => updated.modifiedCount === 1))
    })
  })
)

/** The key of a pair, whatever its order. */
const keyOf = (a: UserId, b: UserId) => [a, b].sort().join("/")

/** The MongoDB duplicate pairs. */
export const duplicateAccounts = Layer.effect(
  DuplicateAccounts,
  Effect.gen(function* () {
    const { db } = yield* MongoDatabase
    const pairs = db.collection<Keyed>("duplicate_pairs")
    yield* read(() => Promise.all([pairs.createIndex({ older: 1 }), pairs.createIndex({ newer: 1 })]))
    return DuplicateAccounts.of({
      // In a unit, looked for first: a duplicate key would abort the unit's whole transaction.
      record: (pair) => {
        const _id = keyOf(pair.older, pair.newer)
        return toPort(
          Effect.gen(function* () {
            const options = yield* unitOptions
            if (options.session !== undefined && (yield* tryMongo(() => pairs.findOne({ _id }, options))) !== null) {
              return false
            }
            return yield* tryMongo(() => pairs.insertOne({ _id, ...pair }, options)).pipe(
              Effect.as(true),
              Effect.catchTag("DuplicateKey", () => Effect.succeed(false))
            )
          })
        )
      },
      ofUsers: (users) =>
        users.length === 0
          ? Effect.succeed([])
          : read(() =>
              pairs.find({ $or: [{ older: { $in: [...users] } }, { newer: { $in: [...users] } }] }).toArray()
            ).pipe(Effect.map((docs) => docs.map(pairOf)))
    })
  })
)

/** Both stores on MongoDB. */
export const layer = Layer.mergeAll(payoutAddresses, duplicateAccounts)
