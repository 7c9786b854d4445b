/**
 * Payout addresses' proofs and changes (`payout_proofs`, one row per user; `payout_changes`) and duplicate pairs
 * (`duplicate_pairs`, one row per pair of users, keyed by the two ids in order) in SQLite (decisions 0108, 0109).
 * Taking a proof, marking a report and recording a pair are each one conditional statement.
 */
import {
  DuplicateAccounts,
  DuplicatePair,
  IssuedPayoutProof,
  PayoutAddressStore,
  PayoutChange
} from "@svc/domain/payout"
import { Effect, Layer, Option } from "effect"
import * as RowDecoder from "./RowDecoder.ts"
import { SqliteDatabase } from "./SqliteDatabase.ts"

const proofOf = RowDecoder.records("payout_proofs", IssuedPayoutProof)
const changeOf = RowDecoder.records("payout_changes", PayoutChange)
const pairOf = RowDecoder.records("duplicate_pairs", DuplicatePair)

/** The record of a row, decoded; `None` for no row. */
const optionOf = <A>(decode: RowDecoder.RecordDecoder<A>, row: Record<string, unknown> | undefined) =>
  row === undefined ? Option.none<A>() : Option.some(decode(row.record))

/** The SQLite payout address store. */
export const payoutAddresses = Layer.effect(
  PayoutAddressStore,
  Effect.gen(function* () {
    const { connection } = yield* SqliteDatabase
    const issue = connection.prepare(
      `INSERT INTO payout_proofs (user_nanoid, salt, expires_at, record) VALUES (?, ?, ?, ?)
       ON CONFLICT (user_nanoid) DO UPDATE SET salt = excluded.salt, expires_at = excluded.expires_at,
         record = excluded.record`
    )
    const findProof = connection.prepare("SELECT record FROM payout_proofs WHERE user_nanoid = ?")
    const consume = connection.prepare("DELETE FROM payout_proofs WHERE user_nanoid = ? AND salt = ?")
    const record = connection.prepare(
      "INSERT INTO payout_changes (nanoid, user_nanoid, created_at, record) VALUES (?, ?, ?, ?)"
    )
    const findChange = connection.prepare("SELECT record FROM payout_changes WHERE nanoid = ?")
    const latest = connection.prepare(
      "SELECT record FROM payout_changes WHERE user_nanoid = ? ORDER BY created_at DESC, nanoid DESC LIMIT 1"
    )
    const report = connection.prepare(
      `UPDATE payout_changes SET record = json_set(record, '$.reported_at', :at)
       WHERE nanoid = :id AND json_extract(record, '$.report_token_hash') = :hash
         AND json_extract(record, '$.reported_at') IS NULL`
    )
    return PayoutAddressStore.of({
      issueProof: (proof, expiresAt) =>
        Effect.sync(() => void issue.run(proof.user_nanoid, proof.salt, expiresAt, JSON.stringify(proof))),
      findProof: (user) => Effect.sync(() => optionOf(proofOf, findProof.get(user))),
      consumeProof: (user, salt) => Effect.sync(() => consume.run(user, salt).changes === 1),
      recordChange: (change) =>
        Effect.sync(
          () => void record.run(change.nanoid, change.user_nanoid, change.created_at, JSON.stringify(change))
        ),
      findChange: (id) => Effect.sync(() => optionOf(changeOf, findChange.get(id))),
      latestChange: (user) => Effect.sync(() => optionOf(changeOf, latest.get(user))),
      markReported: (id, hash, at) => Effect.sync(() => report.run({ id, hash, at }).changes === 1)
    })
  })
)

/** The SQLite duplicate pairs. */
export const duplicateAccounts = Layer.effect(
  DuplicateAccounts,
  Effect.gen(function* () {
    const { connection } = yield* SqliteDatabase
    const insert = connection.prepare(
      `INSERT INTO duplicate_pairs (first_user, second_user, record) VALUES (?, ?, ?)
       ON CONFLICT (first_user, second_user) DO NOTHING`
    )
    const ofUsers = connection.prepare(
      `SELECT record FROM duplicate_pairs WHERE first_user IN (SELECT value FROM json_each(:users))
       UNION ALL
       SELECT record FROM duplicate_pairs WHERE second_user IN (SELECT value FROM json_each(:users))
         AND first_user NOT IN (SELECT value FROM json_each(:users))`
    )
    return DuplicateAccounts.of({
      record: (pair) =>
        Effect.sync(() => {
          const [first, second] = [pair.older, pair.newer].sort()
          return insert.run(first ?? "", second ?? "", JSON.stringify(pair)).changes === 1
        }),
      ofUsers: (users) =>
        Effect.sync(() =>
          users.length === 0 ? [] : ofUsers.all({ users: JSON.stringify(users) }).map((row) => pairOf(row.record))
        )
    })
  })
)

/** Both stores on SQLite. */
export const layer = Layer.mergeAll(payoutAddresses, duplicateAccounts)
