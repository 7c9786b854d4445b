/**
 * Decoding at the storage edge: a document that does not match its schema, written with the raw driver into the real
 * database, fails the read that meets it loudly (a defect naming the collection, the id and the field), whichever store
 * reads it.
 */
import { assert, describe, it } from "@effect/vitest"
import { TransactionJournal } from "@svc/domain/chain"
import { InviteRepository } from "@svc/domain/invite"
import { PaymentLedger } from "@svc/domain/payment"
import { TeamRepository } from "@svc/domain/team"
import { UserRepository } from "@svc/domain/user"
import { WebhookDeliveryStore } from "@svc/domain/webhook"
import { Cause, Effect, Exit, Layer } from "effect"
import { testMongoDatabase } from "../../test/TestMongoDatabase.ts"
import { payment, team, teamId, userId, wallet } from "../contract/Fixtures.ts"
import { MongoDatabase } from "./MongoDatabase.ts"
import { StoredDocumentInvalid } from "./MongoDocuments.ts"
import * as MongoStorage from "./MongoStorage.ts"

/** Every port, and the database they use, on a database of the test's own. */
const storage = () => Layer.orDie(MongoStorage.ports.pipe(Layer.provideMerge(testMongoDatabase("decode"))))

/** Inserts `doc` into `collection` as it is, past every store. */
const insertRaw = (collection: string, doc: Record<string, unknown>) =>
  Effect.flatMap(MongoDatabase, ({ db }) => Effect.promise(() => db.collection(collection).insertOne(doc as never)))

/** `read` dies of a `StoredDocumentInvalid` naming `collection/id` and `field`. */
const assertCorrupt = <A, E, R>(read: Effect.Effect<A, E, R>, collection: string, id: string, field: string) =>
  Effect.gen(function* () {
    const exit = yield* Effect.exit(read)
    assert.isTrue(Exit.isFailure(exit), "the read should fail")
    if (Exit.isSuccess(exit)) return
    const defect = Cause.squash(exit.cause)
    assert.instanceOf(defect, StoredDocumentInvalid)
    assert.include((defect as Error).message, `${collection}/${id}`)
    assert.include((defect as Error).message, `["${field}"]`)
  })

describe("MongoDB documents are decoded at the edge", () => {
  it.live("a user whose wallet is not an address", () =>
    Effect.gen(function* () {
      yield* insertRaw("users", { _id: userId(1), nanoid: userId(1), wallet: "nobody", email: "" })
      const users = yield* UserRepository
      yield* assertCorrupt(users.findById(userId(1)), "users", userId(1), "wallet")
    }).pipe(Effect.provide(storage()))
  )

  it.live("a team without a status, in a list of good ones", () =>
    Effect.gen(function* () {
      const teams = yield* TeamRepository
      yield* teams.insert(team(1))
      const { status: _status, ...broken } = team(2)
      yield* insertRaw("teams", { _id: teamId(2), ...broken })
      yield* assertCorrupt(teams.findByIds([teamId(1), teamId(2)]), "teams", teamId(2), "status")
    }).pipe(Effect.provide(storage()))
  )

  it.live("a payment in a state the machine does not have", () =>
    Effect.gen(function* () {
      const record = payment(1)
      yield* insertRaw("payments", { _id: record.nanoid, ...record, state: "lost", lease_until: 0 })
      const ledger = yield* PaymentLedger
      yield* assertCorrupt(ledger.find(record.nanoid), "payments", record.nanoid, "state")
      yield* assertCorrupt(ledger.list({ states: ["lost" as never] }), "payments", record.nanoid, "state")
    }).pipe(Effect.provide(storage()))
  )

  it.live("an invite missing most of its fields", () =>
    Effect.gen(function* () {
      yield* insertRaw("invites", { _id: "in-000000000001", nanoid: "in-000000000001", team_nanoid: teamId(1) })
      const invites = yield* InviteRepository
      yield* assertCorrupt(invites.listByTeams([teamId(1)], []), "invites", "in-000000000001", "kind")
    }).pipe(Effect.provide(storage()))
  )

  it.live("a journaled transaction whose gas is not a number (a shape the store's own schema holds)", () =>
    Effect.gen(function* () {
      const hash: `0x${string}` = `0x${"ab".repeat(32)}`
      yield* insertRaw("chain_transactions", {
        _id: hash,
        chainId: 1,
        relayer: wallet(1),
        nonce: 0,
        status: "sent",
        createdAt: 0,
        updatedAt: 0,
        to: null,
        data: "0x",
        gas: "lots",
        maxFeePerGas: "1",
        maxPriorityFeePerGas: "1",
        raw: "0x",
        carries: []
      })
      const journal = yield* TransactionJournal
      yield* assertCorrupt(journal.byHash(hash), "chain_transactions", hash, "gas")
    }).pipe(Effect.provide(storage()))
  )

  it.live("a webhook delivery without its event", () =>
    Effect.gen(function* () {
      yield* insertRaw("webhook_deliveries", {
        _id: "dl-000000000001",
        webhook_nanoid: "wh-000000000001",
        team_nanoid: teamId(1),
        status: "pending",
        attempts: 0,
        next_attempt_at: 0,
        created_at: 0,
        updated_at: 0,
        lease_until: 0
      })
      const deliveries = yield* WebhookDeliveryStore
      yield* assertCorrupt(
        deliveries.claimDue({ now: 1, limit: 1, leaseMillis: 1000 }),
        "webhook_deliveries",
        "dl-000000000001",
        "event"
      )
    }).pipe(Effect.provide(storage()))
  )
})
