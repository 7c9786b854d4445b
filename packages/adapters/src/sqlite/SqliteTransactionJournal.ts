/**
 * The transaction journal in SQLite (`chain_transactions`, one row per signed version). What is selected on has a
 * column (block numbers as integers: exact up to 2^53); calldata, fees and the signed bytes are kept as JSON in
 * `record` (amounts as decimal strings).
 */
import type { DatabaseSync } from "node:sqlite"
import { type JournaledTransaction, TransactionJournal, TransactionStatus, unfinishedStatuses } from "@svc/domain/chain"
import { Address, HexData } from "@svc/domain/Evm"
import { Effect, Layer, Schema } from "effect"
import * as RowDecoder from "./RowDecoder.ts"
import { SqliteDatabase } from "./SqliteDatabase.ts"

/** What `chain_transactions.record` keeps: calldata, fees (decimal strings) and the signed bytes. */
export const StoredRecord = Schema.Struct({
  to: Schema.NullOr(Address),
  data: HexData,
  gas: Schema.BigIntFromString,
  maxFeePerGas: Schema.BigIntFromString,
  maxPriorityFeePerGas: Schema.BigIntFromString,
  raw: HexData,
  carries: Schema.Array(Schema.String)
})

/** A `chain_transactions` row: what is selected on has a column, the rest is in `record`. */
const TransactionRow = Schema.Struct({
  hash: HexData,
  chain_id: Schema.Number,
  relayer: Address,
  nonce: Schema.Number,
  status: TransactionStatus,
  created_at: Schema.Number,
  updated_at: Schema.Number,
  block_number: Schema.NullOr(Schema.Number),
  block_hash: Schema.NullOr(HexData),
  record: Schema.String
})

const rowOf = RowDecoder.rows("chain_transactions", TransactionRow)
const recordOf = RowDecoder.records("chain_transactions", StoredRecord, RowDecoder.smallMemoSize)

const fromRow = (stored: Record<string, unknown>): JournaledTransaction => {
  const row = rowOf(stored)
  const record = recordOf(row.record, row.hash)
  return {
    hash: row.hash,
    chainId: row.chain_id,
    relayer: row.relayer,
    nonce: row.nonce,
    status: row.status,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    ...(row.block_number === null ? {} : { blockNumber: BigInt(row.block_number) }),
    ...(row.block_hash === null ? {} : { blockHash: row.block_hash }),
    to: record.to,
    data: record.data,
    gas: record.gas,
    maxFeePerGas: record.maxFeePerGas,
    maxPriorityFeePerGas: record.maxPriorityFeePerGas,
    raw: record.raw,
    carries: record.carries
  }
}

/** The statements of the journal, prepared once on the connection. */
const journalStatements = (connection: DatabaseSync) => ({
  insert: connection.prepare(
    `INSERT INTO chain_transactions
       (hash, chain_id, relayer, nonce, status, created_at, updated_at, block_number, block_hash, record)
     VALUES (:hash, :chainId, :relayer, :nonce, :status, :createdAt, :updatedAt, :blockNumber, :blockHash, :record)
     ON CONFLICT (hash) DO NOTHING`
  ),
  update: connection.prepare(
    `UPDATE chain_transactions SET status = :status, updated_at = :at,
       block_number = COALESCE(:blockNumber, block_number), block_hash = COALESCE(:blockHash, block_hash)
     WHERE hash = :hash`
  ),
  clearBlock: connection.prepare("UPDATE chain_transactions SET block_number = NULL, block_hash = NULL WHERE hash = ?"),
  highestNonce: connection.prepare(
    "SELECT MAX(nonce) AS nonce FROM chain_transactions WHERE chain_id = ? AND relayer = ? AND status <> 'failed'"
  ),
  unfinished: connection.prepare(
    `SELECT * FROM chain_transactions
     WHERE chain_id = ? AND relayer = ? AND status IN (SELECT value FROM json_each(?))
     ORDER BY nonce, created_at`
  ),
  versions: connection.prepare(
    "SELECT * FROM chain_transactions WHERE chain_id = ? AND relayer = ? AND nonce = ? ORDER BY created_at, rowid"
  ),
  byHash: connection.prepare("SELECT * FROM chain_transactions WHERE hash = ?"),
  minedSince: connection.prepare(
    `SELECT * FROM chain_transactions
     WHERE chain_id = ? AND relayer = ? AND block_number >= ? AND status IN ('included', 'confirmed')
     ORDER BY block_number, nonce`
  ),
  reopen: connection.prepare(
    `UPDATE chain_transactions SET status = 'sent', updated_at = ?, block_number = NULL, block_hash = NULL
     WHERE chain_id = ? AND relayer = ? AND nonce >= ? AND status IN ('included', 'confirmed')`
  ),
  // Taken when free (lapsed) or already the holder's; a missing row is created taken.
  takeLease: connection.prepare(
    `INSERT INTO relayer_leases (chain_id, relayer, lease, lease_holder, lease_until)
     VALUES (:chainId, :relayer, :lease, :holder, :until)
     ON CONFLICT (chain_id, relayer, lease) DO UPDATE SET lease_holder = :holder, lease_until = :until
     WHERE lease_until <= :now OR lease_holder = :holder`
  ),
  releaseLease: connection.prepare(
    `UPDATE relayer_leases SET lease_until = 0
     WHERE chain_id = ? AND relayer = ? AND lease = ? AND lease_holder = ?`
  )
})

type Journal = ReturnType<typeof journalStatements>

const unfinishedJson = JSON.stringify(unfinishedStatuses)

const record = (journal: Journal, transaction: JournaledTransaction) => {
  const record: typeof StoredRecord.Encoded = {
    to: transaction.to,
    data: transaction.data,
    gas: transaction.gas.toString(),
    maxFeePerGas: transaction.maxFeePerGas.toString(),
    maxPriorityFeePerGas: transaction.maxPriorityFeePerGas.toString(),
    raw: transaction.raw,
    carries: transaction.carries
  }
  journal.insert.run({
    hash: transaction.hash,
    chainId: transaction.chainId,
    relayer: transaction.relayer.toLowerCase(),
    nonce: transaction.nonce,
    status: transaction.status,
    createdAt: transaction.createdAt,
    updatedAt: transaction.updatedAt,
    blockNumber: transaction.blockNumber === undefined ? null : Number(transaction.blockNumber),
    blockHash: transaction.blockHash ?? null,
    record: JSON.stringify(record)
  })
}

const update = (journal: Journal, [hash, change]: Parameters<TransactionJournal["Service"]["update"]>) => {
  // Back to `sent` (a reorg took its block away): the block it was seen in no longer holds it.
  if (change.block === undefined && (change.status === "sent" || change.status === "signed")) {
    journal.clearBlock.run(hash)
  }
  journal.update.run({
    hash,
    status: change.status,
    at: change.at,
    blockNumber: change.block === undefined ? null : Number(change.block.number),
    blockHash: change.block?.hash ?? null
  })
}

/** The SQLite journal. */
export const layer = Layer.effect(
  TransactionJournal,
  Effect.gen(function* () {
    const { connection } = yield* SqliteDatabase
    const journal = journalStatements(connection)
    return TransactionJournal.of({
      record: (transaction) => Effect.sync(() => record(journal, transaction)),
      update: (...args) => Effect.sync(() => update(journal, args)),
      nextNonce: (chainId, relayer) =>
        Effect.sync(() => {
          const nonce = journal.highestNonce.get(chainId, relayer.toLowerCase())?.nonce
          return typeof nonce === "number" ? nonce + 1 : undefined
        }),
      unfinished: (chainId, relayer) =>
        Effect.sync(() => journal.unfinished.all(chainId, relayer.toLowerCase(), unfinishedJson).map(fromRow)),
      versions: (chainId, relayer, nonce) =>
        Effect.sync(() => journal.versions.all(chainId, relayer.toLowerCase(), nonce).map(fromRow)),
      reopenFrom: (chainId, relayer, fromNonce, at) =>
        Effect.sync(() => Number(journal.reopen.run(at, chainId, relayer.toLowerCase(), fromNonce).changes)),
      minedSince: (chainId, relayer, fromBlock) =>
        Effect.sync(() => journal.minedSince.all(chainId, relayer.toLowerCase(), Number(fromBlock)).map(fromRow)),
      byHash: (hash) =>
        Effect.sync(() => {
          const row = journal.byHash.get(hash)
          return row === undefined ? undefined : fromRow(row)
        }),
      lease: (chainId, relayer, lease, holder, now, until) =>
        Effect.sync(
          () =>
            journal.takeLease.run({ chainId, relayer: relayer.toLowerCase(), lease, holder, now, until }).changes === 1
        ),
      release: (chainId, relayer, lease, holder) =>
        Effect.sync(() => {
          journal.releaseLease.run(chainId, relayer.toLowerCase(), lease, holder)
        })
    })
  })
)
