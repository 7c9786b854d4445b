/**
 * The transaction journal in SQLite (`chain_transactions`, one row per signed version). What is selected on has a
 * column (block numbers as integers: exact up to 2^53); calldata, fees and the signed bytes are kept as JSON in
 * `record` (amounts as decimal strings). A key's leases are `relayer_leases` rows (`Leases.takeOrKeep`); a write under
 * one checks its fencing token in the same statement (decision 0090), and a status moves only as the transaction
 * machine allows, from the status it has (decision 0091).
 */
import type { DatabaseSync } from "node:sqlite"
import {
  type JournaledTransaction,
  TransactionJournal,
  TransactionMachine,
  TransactionStatus,
  unfinishedStatuses
} from "@svc/domain/chain"
import { Address, HexData } from "@svc/domain/Evm"
import { Effect, Layer, Option, Schema } from "effect"
import * as Leases from "./Leases.ts"
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

/** The condition that the key's lease `:lease` is still the holder's `:token` (any lease when `:lease` is null). */
const fenced = (chainId: string, relayer: string) =>
  `(:lease IS NULL OR EXISTS (SELECT 1 FROM relayer_leases
     WHERE chain_id = ${chainId} AND relayer = ${relayer} AND lease = :lease AND lease_token = :token))`

/** The statements of the journal, prepared once on the connection. */
const journalStatements = (connection: DatabaseSync) => ({
  insert: connection.prepare(
    `INSERT INTO chain_transactions
       (hash, chain_id, relayer, nonce, status, created_at, updated_at, block_number, block_hash, record)
     SELECT :hash, :chainId, :relayer, :nonce, :status, :createdAt, :updatedAt, :blockNumber, :blockHash, :record
     WHERE ${fenced(":chainId", ":relayer")}
       AND (:lease IS NOT 'send' OR NOT EXISTS (SELECT 1 FROM chain_transactions
         WHERE chain_id = :chainId AND relayer = :relayer AND nonce = :nonce AND status <> 'failed'))
     ON CONFLICT (hash) DO NOTHING`
  ),
  // Back to `sent` (a reorganisation took its block away): the block it was seen in no longer holds it.
  transition: connection.prepare(
    `UPDATE chain_transactions SET status = :to, updated_at = :at,
       block_number = CASE WHEN :to = 'sent' THEN NULL ELSE COALESCE(:blockNumber, block_number) END,
       block_hash = CASE WHEN :to = 'sent' THEN NULL ELSE COALESCE(:blockHash, block_hash) END
     WHERE hash = :hash AND status = :from AND ${fenced("chain_transactions.chain_id", "chain_transactions.relayer")}`
  ),
  carrying: connection.prepare(
    `SELECT * FROM chain_transactions
     WHERE chain_id = ? AND status IN (SELECT value FROM json_each(?))
       AND EXISTS (SELECT 1 FROM json_each(record, '$.carries') WHERE value = ?)
     ORDER BY created_at, rowid`
  ),
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
  // Taken when free (lapsed) or kept by its token; a missing row is made taken.
  takeLease: Leases.takeOrKeep(connection, {
    table: "relayer_leases",
    columns: "chain_id, relayer, lease",
    values: ":chainId, :relayer, :lease",
    conflict: "chain_id, relayer, lease"
  }),
  releaseLease: connection.prepare(
    `UPDATE relayer_leases SET lease_until = 0
     WHERE chain_id = ? AND relayer = ? AND lease = ? AND lease_token = ?`
  )
})

type Journal = ReturnType<typeof journalStatements>

const unfinishedJson = JSON.stringify(unfinishedStatuses)

const record = (
  journal: Journal,
  [transaction, fence]: Parameters<TransactionJournal["Service"]["record"]>
): boolean => {
  const record: typeof StoredRecord.Encoded = {
    to: transaction.to,
    data: transaction.data,
    gas: transaction.gas.toString(),
    maxFeePerGas: transaction.maxFeePerGas.toString(),
    maxPriorityFeePerGas: transaction.maxPriorityFeePerGas.toString(),
    raw: transaction.raw,
    carries: transaction.carries
  }
  const inserted = journal.insert.run({
    lease: fence.lease,
    token: fence.token,
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
  // Already there: the same bytes, recorded before.
  return inserted.changes === 1 || journal.byHash.get(transaction.hash) !== undefined
}

const transition = (journal: Journal, [hash, change, fence]: Parameters<TransactionJournal["Service"]["transition"]>) =>
  Effect.andThen(
    Effect.orDie(TransactionMachine.move(change.from, change.to)),
    Effect.sync(
      () =>
        journal.transition.run({
          hash,
          from: change.from,
          to: change.to,
          at: change.at,
          blockNumber: change.block === undefined ? null : Number(change.block.number),
          blockHash: change.block?.hash ?? null,
          lease: fence?.lease ?? null,
          token: fence?.token ?? null
        }).changes === 1
    )
  )

/** The SQLite journal. */
export const layer = Layer.effect(
  TransactionJournal,
  Effect.gen(function* () {
    const { connection } = yield* SqliteDatabase
    const journal = journalStatements(connection)
    return TransactionJournal.of({
      record: (...args) => Effect.sync(() => record(journal, args)),
      transition: (...args) => transition(journal, args),
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
      unfinishedCarrying: (chainId, label) =>
        Effect.sync(() => journal.carrying.all(chainId, unfinishedJson, label).map(fromRow)),
      lease: (chainId, relayer, lease, held, now, until) =>
        Effect.sync(() =>
          Option.fromNullishOr(
            journal.takeLease({ chainId, relayer: relayer.toLowerCase(), lease, held: held ?? null, now, until })
          )
        ),
      release: (chainId, relayer, lease, token) =>
        Effect.sync(() => {
          journal.releaseLease.run(chainId, relayer.toLowerCase(), lease, token)
        })
    })
  })
)
