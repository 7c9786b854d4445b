/**
 * Issued typed data in SQLite (`issued_requests`, one row per salt), and its execution's life: every move of the
 * issued-request machine (`claim`, `release`, `takeOver`, `reopen`; `record` is the ledger's, with the payments) is
 * one conditional `UPDATE` built from the machine's table, on the stored state and, for a holder's moves, the claim's
 * fencing token (`Leases.ts`, decisions 0090 and 0091), so of concurrent claims in any number of processes on the file
 * exactly one wins, and a holder whose claim was taken over changes nothing. `expires_at` and `bytes` beside the record
 * make a team's budget of unexecuted requests one indexed sum, checked and inserted in one `BEGIN IMMEDIATE`
 * transaction, so concurrent issues in any number of processes on the file never take a team over its budget.
 */
import type { DatabaseSync } from "node:sqlite"
import { Uint256String } from "@svc/domain/Evm"
import {
  AlreadyClaimed,
  type ClaimedTypedData,
  expiryOf,
  IssuedRequestMachine,
  IssuedRequestStore,
  IssuedRequestsLimit,
  type IssuedTypedData,
  storedBytesOf,
  TypedDataNotFound
} from "@svc/domain/eip712"
import type { Lease } from "@svc/domain/Lease"
import { IssuedTypedDataRecord } from "@svc/domain/payment"
import { edge } from "@svc/domain/StateMachine"
import { Effect, Layer, Option, Schema } from "effect"
import * as Leases from "./Leases.ts"
import * as RowDecoder from "./RowDecoder.ts"
import { SqliteDatabase } from "./SqliteDatabase.ts"

/** The leases on issued requests (the execution claims), for this store and the ledger. */
export const issuedLeasesOn = (connection: DatabaseSync) =>
  Leases.on(connection, { table: "issued_requests", row: "salt = :salt", key: "salt" })

/** The machine's moves this store writes, checked against its table when the layer starts. */
const moves = {
  claim: edge(IssuedRequestMachine, "issued", "claim"),
  release: edge(IssuedRequestMachine, "executing", "release"),
  takeOver: edge(IssuedRequestMachine, "executing", "takeOver"),
  reopen: edge(IssuedRequestMachine, "executed", "reopen")
} as const

/** Issued records are read once or twice (the PUT, the execution): a small memo. */
const decodeIssued = RowDecoder.records("issued_requests", IssuedTypedDataRecord, RowDecoder.smallMemoSize)

/** The issued record of a row, with `claimedAt` once claimed (stored as `executed_at`) (the claim token stays out of it). */
export const issuedOf = (row: Record<string, unknown>): IssuedTypedData => {
  // The schema decodes to the domain's type: the annotation is the compiler's check.
  const record: IssuedTypedData = decodeIssued(row.record, String(row.salt))
  return row.state === "issued" ? record : { ...record, claimedAt: Number(row.executed_at ?? 0) }
}

const saltOf = RowDecoder.rows("issued_requests", Schema.Struct({ salt: Uint256String }))

/** The claimed record of a row its holder took under `lease`. */
const claimedOf = (row: Record<string, unknown>, lease: Lease, reopened = false): ClaimedTypedData => ({
  ...issuedOf(row),
  claim: { ...lease, claimedAt: Number(row.executed_at ?? 0) },
  signature: String(row.signature ?? ""),
  ...(reopened ? { reopened } : {})
})

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
    const find = connection.prepare(
      "SELECT salt, record, state, executed_at, signature FROM issued_requests WHERE salt = ?"
    )
    const claim = leases.take({
      when: `state = '${moves.claim.from}'`,
      set: `state = '${moves.claim.to}', executed_at = :now, signature = :signature, in_flight = NULL`
    })
    const renew = leases.renew({ when: `state = '${moves.takeOver.from}'` })
    const release = leases.release({
      when: `state = '${moves.release.from}'`,
      set: `state = '${moves.release.to}', executed_at = NULL, signature = NULL, in_flight = NULL`
    })
    const takeOver = leases.take({ when: `state = '${moves.takeOver.from}'`, set: `state = '${moves.takeOver.to}'` })
    // The result it had is its transaction in flight meanwhile, under the new token (SET reads the old row).
    const reopen = leases.take({
      when: `state = '${moves.reopen.from}'`,
      set: `state = '${moves.reopen.to}', in_flight = json_object('token', lease_token + 1, 'result', json(result))`
    })
    const abandoned = connection.prepare(
      `SELECT salt, record, state, executed_at FROM issued_requests
       WHERE state = 'executing' AND lease_until <= ? ORDER BY executed_at, salt LIMIT ?`
    )
    const found = (salt: string) => {
      const row = find.get(salt)
      return row === undefined ? Effect.fail(new TypedDataNotFound({ salt })) : Effect.succeed(issuedOf(row))
    }
    /** Takes `salt` by `move` and reads it back, in one transaction. */
    const taking = (move: typeof takeOver, salt: string, now: number, until: number, reopened = false) =>
      transaction(() => {
        const lease = move({ salt, now, until })
        const row = lease === undefined ? undefined : find.get(salt)
        return lease === undefined || row === undefined ? Option.none() : Option.some(claimedOf(row, lease, reopened))
      })
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
      claim: (salt, { now, until, signature }) =>
        Effect.suspend((): Effect.Effect<ClaimedTypedData, TypedDataNotFound | AlreadyClaimed> => {
          const [lease, row] = transaction(() => {
            const taken = claim({ salt, now, until, signature })
            return [taken, find.get(salt)] as const
          })
          if (row === undefined) return Effect.fail(new TypedDataNotFound({ salt }))
          if (lease === undefined) return Effect.fail(new AlreadyClaimed({ salt }))
          return Effect.succeed(claimedOf(row, lease))
        }),
      renew: (salt, token, until) => Effect.sync(() => Option.fromNullishOr(renew({ salt, token, until }))),
      release: (salt, token) => Effect.sync(() => release({ salt, token })),
      takeOver: (salt, now, until) => Effect.sync(() => taking(takeOver, salt, now, until)),
      reopen: (salt, now, until) => Effect.sync(() => taking(reopen, salt, now, until, true)),
      abandoned: (now, limit) =>
        Effect.sync(() => abandoned.all(now, limit).map((row) => ({ salt: saltOf(row).salt, issued: issuedOf(row) })))
    })
  })
)
