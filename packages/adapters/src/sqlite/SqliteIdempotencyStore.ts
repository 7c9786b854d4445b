/**
 * Idempotency keys in SQLite (`idempotency_keys`, one row per scope and key). A claim inserts the key, or takes a
 * lapsed one over (`Leases.take`), under a fresh holder token, in one transaction; `lease_until` is the running
 * claim's lease, then the completed answer's retention. Completing and releasing act only for the token's holder.
 * Lapsed and released keys are deleted as new ones are claimed.
 */
import {
  type ClaimResult,
  IdempotencyStore,
  leaseMillis,
  retentionMillis,
  type StoredResponse
} from "@svc/domain/idempotency"
import { fencingTokenOf } from "@svc/domain/Lease"
import { Effect, Layer, Schema } from "effect"
import * as Leases from "./Leases.ts"
import * as RowDecoder from "./RowDecoder.ts"
import { SqliteDatabase } from "./SqliteDatabase.ts"

/** A response kept for replay (`StoredResponse`), as `idempotency_keys.response` keeps it. */
export const StoredResponseRecord = Schema.Struct({
  status: Schema.Number,
  body: Schema.String,
  contentType: Schema.String
})

const responseOf: (text: unknown, key: string) => StoredResponse = RowDecoder.json(
  "idempotency_keys",
  StoredResponseRecord
)

/** The SQLite idempotency store. */
export const layer = Layer.effect(
  IdempotencyStore,
  Effect.gen(function* () {
    const { connection, transaction } = yield* SqliteDatabase
    const leases = Leases.on(connection, {
      table: "idempotency_keys",
      row: "scope = :scope AND key = :key",
      key: "rowid"
    })
    // A key's row is deleted once lapsed, so a new row's first token is the time of its taking: larger than any token
    // of the row before it, whose holder may still be around (a request paused past its lease).
    const insert = connection.prepare(
      `INSERT INTO idempotency_keys (scope, key, body_hash, state, lease_token, lease_until)
       VALUES (:scope, :key, :bodyHash, 'running', :now, :until) ON CONFLICT (scope, key) DO NOTHING`
    )
    const takeOver = leases.take({ set: "body_hash = :bodyHash, state = 'running', response = NULL" })
    const find = connection.prepare(
      "SELECT body_hash, state, response FROM idempotency_keys WHERE scope = :scope AND key = :key"
    )
    const complete = leases.whileHeld({
      set: "state = 'completed', response = :response, lease_until = :until",
      when: "state = 'running'"
    })
    // A released key is free at once (`lease_until = 0`): the next claim takes it over.
    const release = leases.release({ when: "state = 'running'" })
    const prune = connection.prepare(
      "DELETE FROM idempotency_keys WHERE rowid IN (SELECT rowid FROM idempotency_keys WHERE lease_until <= ? LIMIT 100)"
    )

    return IdempotencyStore.of({
      claim: (key, bodyHash, now) =>
        Effect.sync(() =>
          transaction((): ClaimResult => {
            prune.run(now)
            const names = { scope: key.scope, key: key.key }
            const until = now + leaseMillis
            if (insert.run({ ...names, bodyHash, now, until }).changes === 1) {
              return { _tag: "Claimed", token: fencingTokenOf(now) }
            }
            const taken = takeOver({ ...names, bodyHash, now, until })
            if (taken !== undefined) return { _tag: "Claimed", token: taken.token }
            // Neither inserted nor lapsed: a live claim or a kept answer.
            const row = find.get(names)
            if (row !== undefined && row.body_hash !== bodyHash) return { _tag: "Mismatch" }
            if (row?.state !== "completed" || typeof row.response !== "string") return { _tag: "Running" }
            return { _tag: "Completed", response: responseOf(row.response, `${key.scope}/${key.key}`) }
          })
        ),
      complete: (key, token, response, now) =>
        Effect.sync(
          () =>
            void complete({
              scope: key.scope,
              key: key.key,
              token,
              response: JSON.stringify(response),
              until: now + retentionMillis
            })
        ),
      release: (key, token) => Effect.sync(() => void release({ scope: key.scope, key: key.key, token }))
    })
  })
)
