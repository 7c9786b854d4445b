/**
 * Issued typed data in SQLite (`issued_requests`, one row per salt). The claim takes the row's lease
 * (`Leases.take`: `issued` -> `executing`, under a fresh holder token, the claim token), so of concurrent claims in
 * any number of processes on the file exactly one wins; the payments ledger takes executions over and records their
 * results on the same row, for the holder only. `expires_at` and `bytes` beside the record make a team's budget of
 * unexecuted requests one indexed sum, checked and inserted in one `BEGIN IMMEDIATE` transaction, so concurrent
 * issues in any number of processes on the file never take a team over its budget.
 */
import type { DatabaseSync } from "node:sqlite"
import {
  AlreadyClaimed,
  type ClaimedTypedData,
  expiryOf,
  IssuedRequestStore,
  IssuedRequestsLimit,
  type IssuedTypedData,
  storedBytesOf,
  TypedDataNotFound
} from "@svc/domain/eip712"
import { executionLeaseMillis, IssuedTypedDataRecord } from "@svc/domain/payment"
import { Effect, Layer } from "effect"
import * as Leases from "./Leases.ts"
import * as RowDecoder from "./RowDecoder.ts"
import { SqliteDatabase } from "./SqliteDatabase.ts"

/** The leases on issued requests (the execution claims), for this store and the ledger. */
export const issuedLeasesOn = (connection: DatabaseSync) =>
  Leases.on(connection, { table: "issued_requests", row: "salt = :salt", key: "salt" })

/** Issued records are read once or twice (the PUT, the execution): a small memo. */
const decodeIssued = RowDecoder.records("issued_requests", IssuedTypedDataRecord, RowDecoder.smallMemoSize)

/** The issued record of a row, with `claimedAt` once claimed (stored as `executed_at`) (the claim token stays out of it). */
export const issuedOf = (row: Record<string, unknown>): IssuedTypedData => {
  // The schema decodes to the domain's type: the annotation is the compiler's check.
  const record: IssuedTypedData = decodeIssued(row.record, String(row.salt))
  return row.state === "issued" ? record : { ...record, claimedAt: Number(row.executed_at ?? 0) }
}

/** The SQLite issued typed data store. */
export const layer = Layer.effect(
  IssuedRequestStore,
  Effect.gen(function* () {
    const { connection, transaction } = yield* SqliteDatabase
    const leases = issuedLeasesOn(connection)
    const insert = connection.prepare(
      "INSERT INTO issued_requests (salt, team_nanoid, record, expires_at, bytes) VALUES (?, ?, ?, ?, ?)"
    )
    const held = connection.prepare(
      `SELECT count(*) AS count, coalesce(sum(bytes), 0) AS bytes FROM issued_requests
       WHERE team_nanoid = ? AND state = 'issued' AND expires_at > ?`
    )
    const removeExpired = connection.prepare(
      `DELETE FROM issued_requests WHERE salt IN (
         SELECT salt FROM issued_requests WHERE state = 'issued' AND expires_at <= ? LIMIT ?
       )`
    )
    const store = (record: IssuedTypedData, bytes: number) =>
      void insert.run(record.salt, record.team, JSON.stringify(record), expiryOf(record), bytes)
    const find = connection.prepare("SELECT salt, record, state, executed_at FROM issued_requests WHERE salt = ?")
    const claim = leases.take({ when: "state = 'issued'", set: "state = 'executing', executed_at = :now" })
    const release = leases.release({ when: "state = 'executing'", set: "state = 'issued', executed_at = NULL" })
    const found = (salt: string) => {
      const row = find.get(salt)
      return row === undefined ? Effect.fail(new TypedDataNotFound({ salt })) : Effect.succeed(issuedOf(row))
    }
    return IssuedRequestStore.of({
      issue: (record) => Effect.sync(() => store(record, storedBytesOf(record))),
      issueWithin: (record, budget) =>
        Effect.suspend(() => {
          const bytes = storedBytesOf(record)
          const kept = transaction(() => {
            const row = held.get(record.team, Math.floor(budget.now / 1000))
            const within =
              Number(row?.count ?? 0) + 1 <= budget.maxCount && Number(row?.bytes ?? 0) + bytes <= budget.maxBytes
            if (within) store(record, bytes)
            return within
          })
          return kept ? Effect.void : Effect.fail(new IssuedRequestsLimit({ team: record.team }))
        }),
      held: (team, now) =>
        Effect.sync(() => {
          const row = held.get(team, Math.floor(now / 1000))
          return { count: Number(row?.count ?? 0), bytes: Number(row?.bytes ?? 0) }
        }),
      removeExpired: (cutoff, limit) => Effect.sync(() => Number(removeExpired.run(cutoff, limit).changes)),
      find: (salt) => Effect.suspend(() => found(salt)),
      claim: (salt, now) =>
        Effect.suspend((): Effect.Effect<ClaimedTypedData, TypedDataNotFound | AlreadyClaimed> => {
          const [lease, row] = transaction(() => {
            const taken = claim({ salt, now, until: now + executionLeaseMillis })
            return [taken, find.get(salt)] as const
          })
          if (row === undefined) return Effect.fail(new TypedDataNotFound({ salt }))
          if (lease === undefined) return Effect.fail(new AlreadyClaimed({ salt }))
          return Effect.succeed({ ...issuedOf(row), claimedAt: now, claimToken: lease.holder })
        }),
      release: (salt, claimToken) => Effect.sync(() => void release({ salt, holder: claimToken }))
    })
  })
)
