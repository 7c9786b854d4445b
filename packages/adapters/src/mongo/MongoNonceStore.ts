/**
 * Sign-in nonces in MongoDB (`siwe_nonces`, `_id` = nonce). Consuming is one atomic conditional `findOneAndUpdate`
 * (`used: false` -> `true`), so of concurrent verifications across replicas at most one succeeds; expiry is checked
 * on the consumed record, and a TTL index lets the server delete old nonces.
 */
import { NonceExpired, NonceNotFound, type NonceRecord, NonceStore } from "@svc/domain/auth"
import { Address } from "@svc/domain/Evm"
import { Effect, Layer, Schema } from "effect"
import { MongoDatabase } from "./MongoDatabase.ts"
import { documentDecoder } from "./MongoDocuments.ts"
import { toPort, tryMongo } from "./MongoErrors.ts"

interface NonceDocument {
  _id: string
  wallet: string
  expiresAt: Date
  used: boolean
  /** The wallet in lower case, so `consume` matches it in its filter whatever the letter case. */
  walletKey: string
  messageHash: string
  svcid?: string
}

/** What `consume` reads of a nonce. */
const issuedNonceOf = documentDecoder(
  "siwe_nonces",
  Schema.Struct({
    wallet: Address,
    expiresAt: Schema.Date,
    // Absent from nonces issued before messages were bound to them: read as "", which no message matches.
    messageHash: Schema.String.pipe(Schema.withDecodingDefaultKey(Effect.succeed(""))),
    svcid: Schema.optional(Schema.String)
  })
)

/** The MongoDB nonce store. */
export const layer = Layer.effect(
  NonceStore,
  Effect.gen(function* () {
    const { db } = yield* MongoDatabase
    const col = db.collection<NonceDocument>("siwe_nonces")
    yield* toPort(tryMongo(() => col.createIndex({ expiresAt: 1 }, { expireAfterSeconds: 3600 })))
    return NonceStore.of({
      issue: (record) =>
        tryMongo(() =>
          col.insertOne({
            _id: record.nonce,
            wallet: record.wallet,
            expiresAt: new Date(record.expiresAt),
            used: false,
            walletKey: record.wallet.toLowerCase(),
            messageHash: record.messageHash,
            ...(record.svcid === undefined ? {} : { svcid: record.svcid })
          })
        ).pipe(Effect.asVoid, toPort),
      consume: (nonce, wallet, now) =>
        tryMongo(() =>
          col.findOneAndUpdate(
            { _id: nonce, used: false, walletKey: wallet.toLowerCase() },
            { $set: { used: true } },
            { returnDocument: "after" }
          )
        ).pipe(
          toPort,
          Effect.flatMap((doc): Effect.Effect<NonceRecord, NonceNotFound | NonceExpired> => {
            if (doc === null) return Effect.fail(new NonceNotFound({ nonce }))
            const stored = issuedNonceOf(doc)
            const record: NonceRecord = {
              nonce,
              wallet: stored.wallet,
              expiresAt: stored.expiresAt.getTime(),
              messageHash: stored.messageHash,
              ...(stored.svcid === undefined ? {} : { svcid: stored.svcid })
            }
            return now < record.expiresAt
              ? Effect.succeed(record)
              : Effect.fail(new NonceExpired({ nonce, expiresAt: record.expiresAt }))
          })
        )
    })
  })
)
