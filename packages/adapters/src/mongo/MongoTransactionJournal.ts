/**
 * The transaction journal in MongoDB (`chain_transactions`, `_id` = the hash, one document per signed version).
 * Amounts are decimal strings (BSON has no unsigned 256-bit integer); block numbers are numbers (exact up to 2^53).
 * A key's leases are `relayer_leases` documents (`Leases.takeOrKeep`); a write under one commits only with its
 * fencing token still current (decision 0090), and a status moves only as the transaction machine allows, from the
 * status it has (decision 0091).
 */
import {
  type JournaledTransaction,
  type KeyFence,
  type RelayerLease,
  TransactionJournal,
  TransactionMachine,
  TransactionStatus,
  type TransactionStatusChange,
  unfinishedStatuses
} from "@svc/domain/chain"
import { Address as AddressSchema, HexData } from "@svc/domain/Evm"
import { Effect, Layer, Option, Schema } from "effect"
import type { ClientSession, Collection, Document, Filter, MongoClient } from "mongodb"
import type { Address, Hex } from "viem"
import { type LeaseFields, takeOrKeep } from "./Leases.ts"
import { MongoDatabase } from "./MongoDatabase.ts"
import { documentDecoder } from "./MongoDocuments.ts"
import { inTransaction } from "./MongoTransaction.ts"

interface TransactionDocument {
  _id: Hex
  chainId: number
  relayer: string
  nonce: number
  status: TransactionStatus
  createdAt: number
  updatedAt: number
  blockNumber?: number
  blockHash?: Hex
  to: Address | null
  data: Hex
  gas: string
  maxFeePerGas: string
  maxPriorityFeePerGas: string
  raw: Hex
  carries: Array<string>
}

/** One lease of a relayer's key (`_id` = chain id, relayer and lease name). */
interface LeaseDocument extends LeaseFields {
  _id: string
  /** How many fenced writes were made under it: each writes the document, so a taking meanwhile conflicts. */
  fenced_writes?: number
}

/** A version as `chain_transactions` keeps it: amounts as decimal strings, the block number as a number. */
const StoredTransaction = Schema.Struct({
  _id: HexData,
  chainId: Schema.Number,
  relayer: AddressSchema,
  nonce: Schema.Number,
  status: TransactionStatus,
  createdAt: Schema.Number,
  updatedAt: Schema.Number,
  blockNumber: Schema.optional(Schema.Number),
  blockHash: Schema.optional(HexData),
  to: Schema.NullOr(AddressSchema),
  data: HexData,
  gas: Schema.BigIntFromString,
  maxFeePerGas: Schema.BigIntFromString,
  maxPriorityFeePerGas: Schema.BigIntFromString,
  raw: HexData,
  carries: Schema.Array(Schema.String)
})

const storedOf = documentDecoder("chain_transactions", StoredTransaction)

const fromDocument = (stored: Document): JournaledTransaction => {
  const doc = storedOf(stored)
  return {
    hash: doc._id,
    chainId: doc.chainId,
    relayer: doc.relayer,
    nonce: doc.nonce,
    status: doc.status,
    createdAt: doc.createdAt,
    updatedAt: doc.updatedAt,
    ...(doc.blockNumber === undefined ? {} : { blockNumber: BigInt(doc.blockNumber) }),
    ...(doc.blockHash === undefined ? {} : { blockHash: doc.blockHash }),
    to: doc.to,
    data: doc.data,
    gas: doc.gas,
    maxFeePerGas: doc.maxFeePerGas,
    maxPriorityFeePerGas: doc.maxPriorityFeePerGas,
    raw: doc.raw,
    carries: doc.carries
  }
}

/** The document a version is stored as (written once: a version never changes but for its status and block). */
const documentOf = (transaction: JournaledTransaction): Omit<TransactionDocument, "_id"> => ({
  chainId: transaction.chainId,
  relayer: transaction.relayer.toLowerCase(),
  nonce: transaction.nonce,
  status: transaction.status,
  createdAt: transaction.createdAt,
  updatedAt: transaction.updatedAt,
  ...(transaction.blockNumber === undefined ? {} : { blockNumber: Number(transaction.blockNumber) }),
  ...(transaction.blockHash === undefined ? {} : { blockHash: transaction.blockHash }),
  to: transaction.to,
  data: transaction.data,
  gas: transaction.gas.toString(),
  maxFeePerGas: transaction.maxFeePerGas.toString(),
  maxPriorityFeePerGas: transaction.maxPriorityFeePerGas.toString(),
  raw: transaction.raw,
  carries: [...transaction.carries]
})

/** The update of a status change. */
const updateOf = (change: TransactionStatusChange) =>
  change.block === undefined
    ? {
        $set: { status: change.to, updatedAt: change.at },
        // Back to `sent` (a reorg took its block away): the block it was seen in no longer holds it.
        ...(change.to === "sent" ? { $unset: { blockNumber: "" as const, blockHash: "" as const } } : {})
      }
    : {
        $set: {
          status: change.to,
          updatedAt: change.at,
          blockNumber: Number(change.block.number),
          blockHash: change.block.hash
        }
      }

const leaseId = (chainId: number, relayer: Address, lease: RelayerLease) =>
  `${chainId}:${relayer.toLowerCase()}:${lease}`

type Transactions = Collection<TransactionDocument>

const sorted = (col: Transactions, filter: Filter<TransactionDocument>) =>
  Effect.promise(() => col.find(filter).sort({ nonce: 1, createdAt: 1 }).toArray()).pipe(
    Effect.map((docs) => docs.map(fromDocument))
  )

const nextNonce = (col: Transactions, chainId: number, relayer: Address) =>
  Effect.promise(() =>
    col
      .find({ chainId, relayer: relayer.toLowerCase(), status: { $ne: "failed" } })
      .sort({ nonce: -1 })
      .limit(1)
      .toArray()
  ).pipe(Effect.map(([highest]) => (highest === undefined ? undefined : fromDocument(highest).nonce + 1)))

const reopenFrom = (col: Transactions, chainId: number, relayer: Address, fromNonce: number, at: number) =>
  Effect.promise(() =>
    col.updateMany(
      {
        chainId,
        relayer: relayer.toLowerCase(),
        nonce: { $gte: fromNonce },
        status: { $in: ["included", "confirmed"] }
      },
      { $set: { status: "sent", updatedAt: at }, $unset: { blockNumber: "", blockHash: "" } }
    )
  ).pipe(Effect.map((result) => result.modifiedCount))

const minedSince = (col: Transactions, chainId: number, relayer: Address, fromBlock: bigint) =>
  Effect.promise(() =>
    col
      .find({
        chainId,
        relayer: relayer.toLowerCase(),
        blockNumber: { $gte: Number(fromBlock) },
        status: { $in: ["included", "confirmed"] }
      })
      .sort({ blockNumber: 1, nonce: 1 })
      .toArray()
  ).pipe(Effect.map((docs) => docs.map(fromDocument)))

/**
 * Runs `write` in one transaction with a write to the key's lease document naming `fence`'s token: a holder that took
 * the lease meanwhile writes that document too, so the two cannot both commit (on jongodb transactions run one at a
 * time anyway). `false` (nothing written) when the token is no longer the lease's.
 */
const fenced = (
  client: MongoClient,
  leases: Collection<LeaseDocument>,
  lease: string,
  fence: KeyFence,
  write: (session: ClientSession) => Promise<boolean>
) =>
  inTransaction(client, async (session) => {
    const held = await leases.updateOne(
      { _id: lease, lease_token: fence.token },
      { $inc: { fenced_writes: 1 } },
      { session }
    )
    return held.matchedCount === 1 && (await write(session))
  })

/** The MongoDB journal. */
export const layer = Layer.effect(
  TransactionJournal,
  Effect.gen(function* () {
    const { db, client } = yield* MongoDatabase
    const col = db.collection<TransactionDocument>("chain_transactions")
    const leases = db.collection<LeaseDocument>("relayer_leases")
    yield* Effect.promise(() =>
      Promise.all([
        col.createIndex({ chainId: 1, relayer: 1, nonce: 1, createdAt: 1 }),
        col.createIndex({ chainId: 1, relayer: 1, status: 1, nonce: 1 }),
        col.createIndex({ chainId: 1, relayer: 1, blockNumber: 1 })
      ])
    )
    return TransactionJournal.of({
      // The same bytes again change nothing; a new version only under the fence.
      record: (transaction, fence) =>
        Effect.flatMap(
          Effect.promise(() => col.findOne({ _id: transaction.hash })),
          (known) =>
            known !== null
              ? Effect.succeed(true)
              : fenced(
                  client,
                  leases,
                  leaseId(transaction.chainId, transaction.relayer, fence.lease),
                  fence,
                  (session) =>
                    col
                      .updateOne(
                        { _id: transaction.hash },
                        { $setOnInsert: documentOf(transaction) },
                        { upsert: true, session }
                      )
                      .then(() => true)
                )
        ),
      transition: (hash, change, fence) =>
        Effect.andThen(
          Effect.orDie(TransactionMachine.move(change.from, change.to)),
          Effect.gen(function* () {
            const move = (session?: ClientSession) =>
              col
                .updateOne(
                  { _id: hash, status: change.from },
                  updateOf(change),
                  session === undefined ? {} : { session }
                )
                .then((moved) => moved.matchedCount === 1)
            if (fence === undefined) return yield* Effect.promise(() => move())
            const row = yield* Effect.promise(() => col.findOne({ _id: hash }))
            if (row === null) return false
            return yield* fenced(client, leases, leaseId(row.chainId, row.relayer as Address, fence.lease), fence, move)
          })
        ),
      nextNonce: (chainId, relayer) => nextNonce(col, chainId, relayer),
      unfinished: (chainId, relayer) =>
        sorted(col, { chainId, relayer: relayer.toLowerCase(), status: { $in: [...unfinishedStatuses] } }),
      versions: (chainId, relayer, nonce) => sorted(col, { chainId, relayer: relayer.toLowerCase(), nonce }),
      reopenFrom: (chainId, relayer, fromNonce, at) => reopenFrom(col, chainId, relayer, fromNonce, at),
      minedSince: (chainId, relayer, fromBlock) => minedSince(col, chainId, relayer, fromBlock),
      byHash: (hash) =>
        Effect.promise(() => col.findOne({ _id: hash })).pipe(
          Effect.map((doc) => (doc === null ? undefined : fromDocument(doc)))
        ),
      unfinishedCarrying: (chainId, label) =>
        Effect.promise(() =>
          col
            .find({ chainId, status: { $in: [...unfinishedStatuses] }, carries: label })
            .sort({ createdAt: 1 })
            .toArray()
        ).pipe(Effect.map((docs) => docs.map(fromDocument))),
      // Taken (or kept) with one conditional `updateOne`; the first take makes the row.
      lease: (chainId, relayer, lease, held, now, until) =>
        Effect.promise(() => takeOrKeep(leases, leaseId(chainId, relayer, lease), { held, now, until })).pipe(
          Effect.map(Option.fromNullishOr)
        ),
      release: (chainId, relayer, lease, token) =>
        Effect.promise(() =>
          leases.updateOne({ _id: leaseId(chainId, relayer, lease), lease_token: token }, { $set: { lease_until: 0 } })
        ).pipe(Effect.asVoid)
    })
  })
)
