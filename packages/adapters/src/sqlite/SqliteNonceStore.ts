/**
 * Sign-in nonces in SQLite (`siwe_nonces`). Consuming is one conditional `UPDATE` (`used = 0` -> `1`, for the
 * nonce's own wallet), so of concurrent verifications, in this process or another on the same file, at most one
 * succeeds; expiry is checked on the consumed record. Nonces expired for an hour are deleted as others are issued or
 * consumed, so challenges nobody answers do not pile up.
 */
import { NonceExpired, NonceNotFound, type NonceRecord, NonceStore } from "@svc/domain/auth"
import { Address } from "@svc/domain/Evm"
import { Clock, Effect, Layer, Schema } from "effect"
import * as RowDecoder from "./RowDecoder.ts"
import { SqliteDatabase } from "./SqliteDatabase.ts"

/** A nonce we issued (`NonceRecord`), as `siwe_nonces.record` keeps it. */
export const StoredNonce = Schema.Struct({
  nonce: Schema.String,
  wallet: Address,
  expiresAt: Schema.Number,
  // Absent from nonces issued before messages were bound to them: read as "", which no message matches.
  messageHash: Schema.String.pipe(Schema.withDecodingDefaultKey(Effect.succeed(""))),
  svcid: Schema.optionalKey(Schema.String)
})

const nonceOf: (text: unknown, nonce: string) => NonceRecord = RowDecoder.json("siwe_nonces", StoredNonce)

/** How long an expired nonce is kept before it is deleted (ms). */
const keptAfterExpiry = 60 * 60 * 1000

/** The SQLite nonce store. */
export const layer = Layer.effect(
  NonceStore,
  Effect.gen(function* () {
    const { connection } = yield* SqliteDatabase
    const issue = connection.prepare(
      "INSERT INTO siwe_nonces (nonce, wallet_key, expires_at, record) VALUES (?, ?, ?, ?)"
    )
    const consume = connection.prepare(
      "UPDATE siwe_nonces SET used = 1 WHERE nonce = ? AND used = 0 AND wallet_key = ? RETURNING record"
    )
    const prune = connection.prepare("DELETE FROM siwe_nonces WHERE expires_at <= ?")
    return NonceStore.of({
      issue: (record) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) =>
          Effect.sync(() => {
            prune.run(now - keptAfterExpiry)
            issue.run(record.nonce, record.wallet.toLowerCase(), record.expiresAt, JSON.stringify(record))
          })
        ),
      consume: (nonce, wallet, now) =>
        Effect.suspend((): Effect.Effect<NonceRecord, NonceNotFound | NonceExpired> => {
          const row = consume.get(nonce, wallet.toLowerCase())
          prune.run(now - keptAfterExpiry)
          if (row === undefined) return Effect.fail(new NonceNotFound({ nonce }))
          const record = nonceOf(row.record, nonce)
          return now < record.expiresAt
            ? Effect.succeed(record)
            : Effect.fail(new NonceExpired({ nonce, expiresAt: record.expiresAt }))
        })
    })
  })
)
