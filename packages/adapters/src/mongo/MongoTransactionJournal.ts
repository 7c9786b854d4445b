/**
 * The transaction journal in MongoDB (`chain_transactions`, `_id` = the hash, one document per signed version).
 * Amounts are decimal strings (BSON has no unsigned 256-bit integer); block numbers are numbers (exact up to 2^53).
 */
import {
  type JournaledTransaction,
  type RelayerLease,
  TransactionJournal,
  TransactionStatus,
  type TransactionStatusChange,
  unfinishedStatuses
} from "@svc/domain/chain"
import { Address as AddressSchema, HexData } from "@svc/domain/Evm"
import { Effect, Layer, Schema } from "effect"
import type { Collection, Document, Filter } from "mongodb"
import type { Address, Hex } from "viem"
import { setOrMake } from "./Leases.ts"
import { MongoDatabase } from "./MongoDatabase.ts"
import { documentDecoder } from "./MongoDocuments.ts"
import { toPort, tryMongo } from "./MongoErrors.ts"

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
interface LeaseDocument {
  _id: string
  lease_holder: string
  lease_until: number
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
        $set: { status: change.status, updatedAt: change.at },
        // Back to `sent` (a reorg took its block away): the block it was seen in no longer holds it.
        ...(change.status === "sent" || change.status === "signed"
          ? { $unset: { blockNumber: "" as const, blockHash: "" as const } }
          : {})
      }
    : {
        $set: {
          status: change.status,
          updatedAt: change.at,
          blockNumber: Number(change.block.number),
          blockHash: change.block.hash
        }
      }

const leaseId = (chainId: number, relayer: Address, lease: RelayerLease) =>
  `${chainId}:${relayer.toLowerCase()}:${lease}`

type Transactions = Collection<TransactionDocument>

const sorted = (col: Transactions, filter: Filter<TransactionDocument>) =>
  tryMongo(() => col.find(filter).sort({ nonce: 1, createdAt: 1 }).toArray()).pipe(
    Effect.map((docs) => docs.map(fromDocument)),
    toPort
  )

const nextNonce = (col: Transactions, chainId: number, relayer: Address) =>
  tryMongo(() =>
    col
      .find({ chainId, relayer: relayer.toLowerCase(), status: { $ne: "failed" } })
      .sort({ nonce: -1 })
      .limit(1)
      .toArray()
  ).pipe(
    Effect.map(([highest]) => (highest === undefined ? undefined : fromDocument(highest).nonce + 1)),
    toPort
  )

const reopenFrom = (col: Transactions, chainId: number, relayer: Address, fromNonce: number, at: number) =>
  tryMongo(() =>
    col.updateMany(
      {
        chainId,
        relayer: relayer.toLowerCase(),
        nonce: { $gte: fromNonce },
        status: { $in: ["included", "confirmed"] }
      },
      { $set: { status: "sent", updatedAt: at }, $unset: { blockNumber: "", blockHash: "" } }
    )
  ).pipe(
    Effect.map((result) => result.modifiedCount),
    toPort
  )

const minedSince = (col: Transactions, chainId: number, relayer: Address, fromBlock: bigint) =>
  tryMongo(() =>
    col
      .find({
        chainId,
        relayer: relayer.toLowerCase(),
        blockNumber: { $gte: Number(fromBlock) },
        status: { $in: ["included", "confirmed"] }
      })
      .sort({ blockNumber: 1, nonce: 1 })
      .toArray()
  ).pipe(
    Effect.map((docs) => docs.map(fromDocument)),
    toPort
  )

/** The MongoDB journal. */
export const layer = Layer.effect(
  TransactionJournal,
  Effect.gen(function* () {
    const { db } = yield* MongoDatabase
    const col = db.collection<TransactionDocument>("chain_transactions")
    const leases = db.collection<LeaseDocument>("relayer_leases")
    yield* toPort(
      tryMongo(() =>
        Promise.all([
          col.createIndex({ chainId: 1, relayer: 1, nonce: 1, createdAt: 1 }),
          col.createIndex({ chainId: 1, relayer: 1, status: 1, nonce: 1 }),
          col.createIndex({ chainId: 1, relayer: 1, blockNumber: 1 })
        ])
      )
    )
    return TransactionJournal.of({
      record: (transaction) =>
        tryMongo(() =>
          col.updateOne({ _id: transaction.hash }, { $setOnInsert: documentOf(transaction) }, { upsert: true })
        ).pipe(Effect.asVoid, toPort),
      update: (hash, change) =>
        tryMongo(() => col.updateOne({ _id: hash }, updateOf(change))).pipe(Effect.asVoid, toPort),
      nextNonce: (chainId, relayer) => nextNonce(col, chainId, relayer),
      unfinished: (chainId, relayer) =>
        sorted(col, { chainId, relayer: relayer.toLowerCase(), status: { $in: [...unfinishedStatuses] } }),
      versions: (chainId, relayer, nonce) => sorted(col, { chainId, relayer: relayer.toLowerCase(), nonce }),
      reopenFrom: (chainId, relayer, fromNonce, at) => reopenFrom(col, chainId, relayer, fromNonce, at),
      minedSince: (chainId, relayer, fromBlock) => minedSince(col, chainId, relayer, fromBlock),
      byHash: (hash) =>
        tryMongo(() => col.findOne({ _id: hash })).pipe(
          Effect.map((doc) => (doc === null ? undefined : fromDocument(doc))),
          toPort
        ),
      // Taken (or kept) with one conditional write, acknowledged by a majority; the first take makes the row.
      lease: (chainId, relayer, lease, holder, now, until) =>
        setOrMake(
          leases,
          { _id: leaseId(chainId, relayer, lease), $or: [{ lease_until: { $lte: now } }, { lease_holder: holder }] },
          { lease_holder: holder, lease_until: until }
        ).pipe(toPort),
      release: (chainId, relayer, lease, holder) =>
        tryMongo(() =>
          leases.updateOne(
            { _id: leaseId(chainId, relayer, lease), lease_holder: holder },
            { $set: { lease_until: 0 } }
          )
        ).pipe(Effect.asVoid, toPort)
    })
  })
)
