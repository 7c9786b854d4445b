/**
 * The transaction journal in MongoDB (`chain_transactions`, `_id` = the hash, one document per signed version).
 * Amounts are decimal strings (BSON has no unsigned 256-bit integer); block numbers are numbers (exact up to 2^53).
 *
 * Fenced writes (decision 0090): neither the journal nor the keys' leases (`relayer_leases`) is written in a
 * transaction (decision 0097), so a write under a key's lease reads the lease's token, then writes. A nonce's first
 * version also takes the nonce in `chain_nonces` (`_id` = chain, key and nonce; the version's hash), one insert that
 * meets the unique `_id`: a sender paused between its reading of the token and its write finds the nonce taken by the
 * key's next holder, and records nothing. No nonce carries two calls; a first version that fails gives its nonce back.
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
import type { Collection, Document, Filter } from "mongodb"
import type { Address, Hex } from "viem"
import { type LeaseFields, takeOrKeep } from "./Leases.ts"
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
interface LeaseDocument extends LeaseFields {
  _id: string
}

/** A nonce of a key, taken by its first version (`_id` = chain id, relayer and nonce). */
interface NonceDocument {
  _id: string
  hash: Hex
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

/** The update of a move: the new status, and the block it was seen in (a move back to `sent` forgets it). */
const updateOf = (change: TransactionStatusChange) =>
  change.block === undefined
    ? {
        $set: { status: change.to, updatedAt: change.at },
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

const nonceId = (version: { readonly chainId: number; readonly relayer: string; readonly nonce: number }) =>
  `${version.chainId}:${version.relayer.toLowerCase()}:${version.nonce}`

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

interface Collections {
  readonly col: Transactions
  readonly leases: Collection<LeaseDocument>
  readonly nonces: Collection<NonceDocument>
}

/** Whether `fence` is still the current token of its lease on the key of `version`. */
const holds = (c: Collections, version: { readonly chainId: number; readonly relayer: string }, fence: KeyFence) =>
  tryMongo(() =>
    c.leases.findOne({
      _id: leaseId(version.chainId, version.relayer as Address, fence.lease),
      lease_token: fence.token
    })
  ).pipe(Effect.map((lease) => lease !== null))

/**
 * Takes the nonce of a first version: true when it is this version's now. Not while another version of the nonce is
 * live; else the nonce's document decides between two takers at once (taken, or taken by this version before, or
 * left by a version that failed since).
 */
const takeNonce = (c: Collections, transaction: JournaledTransaction) =>
  Effect.gen(function* () {
    const { chainId, relayer, nonce, hash } = transaction
    const live = yield* tryMongo(() =>
      c.col.findOne({ chainId, relayer: relayer.toLowerCase(), nonce, status: { $ne: "failed" }, _id: { $ne: hash } })
    )
    if (live !== null) return false
    const _id = nonceId(transaction)
    const taken = yield* tryMongo(() => c.nonces.insertOne({ _id, hash })).pipe(
      Effect.as(true),
      Effect.catchTag("DuplicateKey", () => Effect.succeed(false))
    )
    if (taken) return true
    const holder = yield* tryMongo(() => c.nonces.findOne({ _id }))
    if (holder === null || holder.hash === hash) return true
    const before = yield* tryMongo(() => c.col.findOne({ _id: holder.hash }))
    if (before !== null && before.status !== "failed") return false
    const moved = yield* tryMongo(() => c.nonces.updateOne({ _id, hash: holder.hash }, { $set: { hash } }))
    return moved.matchedCount === 1
  })

/** `record`: a new version under `fence`; the same bytes again change nothing. */
const record = (c: Collections, transaction: JournaledTransaction, fence: KeyFence) =>
  Effect.gen(function* () {
    if ((yield* tryMongo(() => c.col.findOne({ _id: transaction.hash }))) !== null) return true
    if (!(yield* holds(c, transaction, fence))) return false
    if (fence.lease === "send" && !(yield* takeNonce(c, transaction))) return false
    yield* tryMongo(() =>
      c.col.updateOne({ _id: transaction.hash }, { $setOnInsert: documentOf(transaction) }, { upsert: true })
    )
    return true
  }).pipe(toPort)

/** `transition`: one version moved from the status it still has, under `fence` when given. */
const transition = (c: Collections, hash: Hex, change: TransactionStatusChange, fence: KeyFence | undefined) =>
  Effect.andThen(
    Effect.orDie(TransactionMachine.move(change.from, change.to)),
    Effect.gen(function* () {
      const row = yield* tryMongo(() => c.col.findOne({ _id: hash }))
      if (row === null || (fence !== undefined && !(yield* holds(c, row, fence)))) return false
      const moved = yield* tryMongo(() => c.col.updateOne({ _id: hash, status: change.from }, updateOf(change)))
      // A failed first version gives its nonce back, for the key's next send.
      if (moved.matchedCount === 1 && change.to === "failed") {
        yield* tryMongo(() => c.nonces.deleteOne({ _id: nonceId(row), hash }))
      }
      return moved.matchedCount === 1
    }).pipe(toPort)
  )

/** The MongoDB journal. */
export const layer = Layer.effect(
  TransactionJournal,
  Effect.gen(function* () {
    const { db } = yield* MongoDatabase
    const col = db.collection<TransactionDocument>("chain_transactions")
    const c: Collections = {
      col,
      leases: db.collection<LeaseDocument>("relayer_leases"),
      nonces: db.collection<NonceDocument>("chain_nonces")
    }
    yield* toPort(
      tryMongo(() =>
        Promise.all([
          col.createIndex({ chainId: 1, relayer: 1, nonce: 1, createdAt: 1 }),
          col.createIndex({ chainId: 1, relayer: 1, status: 1, nonce: 1 }),
          col.createIndex({ chainId: 1, relayer: 1, blockNumber: 1 }),
          col.createIndex({ carries: 1, status: 1 })
        ])
      )
    )
    return TransactionJournal.of({
      record: (transaction, fence) => record(c, transaction, fence),
      transition: (hash, change, fence) => transition(c, hash, change, fence),
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
      unfinishedCarrying: (chainId, label) =>
        tryMongo(() =>
          col
            .find({ chainId, status: { $in: [...unfinishedStatuses] }, carries: label })
            .sort({ createdAt: 1 })
            .toArray()
        ).pipe(
          Effect.map((docs) => docs.map(fromDocument)),
          toPort
        ),
      // Taken (or kept) with one conditional write, acknowledged by a majority; the first take makes the row.
      lease: (chainId, relayer, lease, held, now, until) =>
        takeOrKeep(c.leases, leaseId(chainId, relayer, lease), { held, now, until }).pipe(
          Effect.map(Option.fromNullishOr),
          toPort
        ),
      release: (chainId, relayer, lease, token) =>
        tryMongo(() =>
          c.leases.updateOne(
            { _id: leaseId(chainId, relayer, lease), lease_token: token },
            { $set: { lease_until: 0 } }
          )
        ).pipe(Effect.asVoid, toPort)
    })
  })
)
