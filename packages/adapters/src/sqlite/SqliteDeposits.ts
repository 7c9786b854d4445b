/**
 * The deposits ledger in SQLite: the follower's cursor and lease in `chain_followers` (one row per follower, taken
 * with the lease mechanism, `Leases.ts`), deposits in `deposits` (the record as JSON beside the columns queries use),
 * each change one transaction (a state change's events are the use case's, in its unit of work). Every write names
 * the follower's fencing token, checked in the same statement or transaction (decision 0090); a deposit's state moves
 * only by the deposit machine, from the state it has.
 */
import type { BlockCursor } from "@svc/domain/chain"
import { Deposit, DepositLedger, DepositMachine } from "@svc/domain/deposit"
import { HexData } from "@svc/domain/Evm"
import { Effect, Layer, Option, Schema } from "effect"
import * as Leases from "./Leases.ts"
import * as RowDecoder from "./RowDecoder.ts"
import { SqliteDatabase } from "./SqliteDatabase.ts"

const decodeDeposit = RowDecoder.records("deposits", Deposit, RowDecoder.smallMemoSize)
const depositOf = (row: Record<string, unknown>): Deposit => decodeDeposit(row.record)

/** A follower's cursor columns (`chain_followers`): none before it read a block. */
const cursorRowOf = RowDecoder.rows(
  "chain_followers",
  Schema.Struct({
    block: Schema.NullOr(Schema.Number),
    hash: Schema.NullOr(Schema.Union([HexData, Schema.Literal("")]))
  })
)

const cursorOf = (row: Record<string, unknown> | undefined, name: string): Option.Option<BlockCursor> => {
  if (row === undefined) return Option.none()
  const { block, hash } = cursorRowOf(row, name)
  return block === null ? Option.none() : Option.some({ block, hash: hash ?? "" })
}

/** The SQLite deposits ledger. */
export const layer = Layer.effect(
  DepositLedger,
  Effect.gen(function* () {
    const { connection, transaction } = yield* SqliteDatabase
    const followers = Leases.on(connection, { table: "chain_followers", row: "name = :name", key: "name" })
    const take = Leases.takeOrKeep(connection, {
      table: "chain_followers",
      columns: "name",
      values: ":name",
      conflict: "name"
    })
    const cursor = connection.prepare("SELECT block, hash FROM chain_followers WHERE name = ?")
    const moveCursor = followers.whileHeld({ set: "block = :block, hash = :hash" })
    const release = followers.release()
    const known = connection.prepare("SELECT state, record FROM deposits WHERE nanoid = ?")
    const put = connection.prepare(
      `INSERT INTO deposits (nanoid, team_nanoid, state, block_number, log_index, record) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (nanoid) DO UPDATE SET state = excluded.state, block_number = excluded.block_number,
         log_index = excluded.log_index, record = excluded.record`
    )
    const withinReorgWindow = connection.prepare(
      `SELECT record FROM deposits WHERE state = 'pending' OR (state = 'confirmed' AND block_number >= ?)
       ORDER BY block_number, log_index`
    )
    const transition = connection.prepare(
      `UPDATE deposits SET state = :to, record = json_set(record, '$.state', :to, '$.updated_at', :updatedAt)
       WHERE nanoid = :nanoid AND state = :from
         AND EXISTS (SELECT 1 FROM chain_followers WHERE name = :follower AND lease_token = :token)`
    )
    const byTeam = connection.prepare(
      `SELECT record FROM deposits WHERE team_nanoid = :team
       AND (:afterBlock IS NULL OR block_number < :afterBlock OR (block_number = :afterBlock AND log_index < :afterLog))
       ORDER BY block_number DESC, log_index DESC LIMIT :limit`
    )
    return DepositLedger.of({
      follow: (name, held, now, until) =>
        Effect.sync(() =>
          transaction(() => {
            const lease = take({ name, held: held ?? null, now, until })
            if (lease === undefined) return Option.none()
            return Option.some({ lease, cursor: cursorOf(cursor.get(name), name) })
          })
        ),
      unfollow: (name, token) => Effect.sync(() => void release({ name, token })),
      advance: (name, token, to, deposits) =>
        Effect.sync(() =>
          transaction(() => {
            if (!moveCursor({ name, token, block: to.block, hash: to.hash })) return false
            for (const deposit of deposits) {
              const row = known.get(deposit.nanoid)
              const before = row === undefined ? undefined : depositOf(row)
              // Known: kept, unless reorganised away or read again from another block while pending.
              const again =
                before === undefined ||
                before.state === "reorged" ||
                (before.state === "pending" && before.block_hash !== deposit.block_hash)
              if (!again) continue
              const record = before === undefined ? deposit : { ...deposit, created_at: before.created_at }
              put.run(
                record.nanoid,
                record.team_nanoid,
                record.state,
                record.block_number,
                record.log_index,
                JSON.stringify(record)
              )
            }
            return true
          })
        ),
      withinReorgWindow: (fromBlock) => Effect.sync(() => withinReorgWindow.all(fromBlock).map(depositOf)),
      transition: (id, { from, to, updatedAt, follower, token }) =>
        Effect.andThen(
          Effect.orDie(DepositMachine.move(from, to)),
          Effect.sync(() => transition.run({ nanoid: id, from, to, updatedAt, follower, token }).changes === 1)
        ),
      list: ({ team, after, limit }) =>
        Effect.sync(() =>
          byTeam
            .all({ team, afterBlock: after?.block_number ?? null, afterLog: after?.log_index ?? null, limit })
            .map(depositOf)
        )
    })
  })
)
