/**
 * Invites and the mail outbox in MongoDB (`invites`, `mail_outbox`, `_id` = id). Every invite step and every batch of
 * queued mails is one transaction, or part of the use case's unit of work when it runs in one (where the mails, an
 * acceptance's membership and user e-mail, and the events are written with it). The state change is one conditional
 * `findOneAndUpdate` (decision 0017). The mail worker leases queued mails with `Leases.takeNext`; a failed mail is
 * handed back with `lease_until` set to when it is due again.
 */
import type { InviteId, TeamId } from "@svc/domain/Ids"
import { Invite, type InviteChange, InviteNotFound, InviteRepository, type InviteState } from "@svc/domain/invite"
import { Mail, MailOutbox } from "@svc/domain/mail"
import { StaleState } from "@svc/domain/StaleState"
import { Clock, Effect, Layer, Schema } from "effect"
import type { Collection, Document } from "mongodb"
import * as Leases from "./Leases.ts"
import { MongoDatabase } from "./MongoDatabase.ts"
import { documentDecoder, recordDecoder } from "./MongoDocuments.ts"
import { toPort, tryMongo } from "./MongoErrors.ts"
import { inTransaction, type TransactionRunner, unitOptions } from "./MongoTransaction.ts"

interface InviteDocument extends Invite {
  _id: string
}

/** A queued mail: the mail, its state and attempts, and the worker's lease. */
interface MailDocument extends Leases.LeaseFields {
  _id: string
  mail: Mail
  created: number
  state: "queued" | "sent" | "failed"
  attempts: number
  last_error?: string
}

const inviteOf = recordDecoder("invites", Invite)

const MailState = Schema.Literals(["queued", "sent", "failed"])

/** What the mail worker reads of a queued mail. */
const claimedMailOf = documentDecoder(
  "mail_outbox",
  Schema.Struct({
    mail: Mail,
    attempts: Schema.Int
  })
)

const mailStateOf = documentDecoder("mail_outbox", Schema.Struct({ state: MailState }))

const mailDocumentOf = (mail: Mail, now: number): MailDocument => ({
  _id: mail.id,
  mail,
  created: now,
  state: "queued",
  attempts: 0,
  lease_until: 0
})

/** The collections the invites touch, and the database's transactions. */
interface InviteCollections {
  readonly transaction: TransactionRunner
  readonly invites: Collection<InviteDocument>
}

/** The invites, in one transaction. */
const create = (collections: InviteCollections, list: ReadonlyArray<Invite>) =>
  list.length === 0
    ? Effect.void
    : inTransaction(collections.transaction, (session) =>
        tryMongo(() =>
          collections.invites.insertMany(
            list.map((invite) => ({ _id: invite.nanoid, ...invite })),
            { session }
          )
        )
      ).pipe(Effect.asVoid)

const findById = (collections: InviteCollections, id: InviteId) =>
  Effect.flatMap(
    tryMongo(() => collections.invites.findOne({ _id: id })),
    (doc) => (doc === null ? Effect.fail(new InviteNotFound({ nanoid: id })) : Effect.succeed(inviteOf(doc)))
  )

const listByTeams = (
  collections: InviteCollections,
  teams: ReadonlyArray<TeamId>,
  states: ReadonlyArray<InviteState>
) =>
  teams.length === 0
    ? Effect.succeed([])
    : tryMongo(() =>
        collections.invites
          .find({
            team_nanoid: { $in: [...teams] },
            ...(states.length === 0 ? {} : { state: { $in: [...states] } })
          })
          .sort({ created_at: -1, _id: -1 })
          .toArray()
      ).pipe(Effect.map((docs) => docs.map(inviteOf)))

const listExpired = (collections: InviteCollections, now: string, limit: number) =>
  tryMongo(() =>
    collections.invites
      .find({ state: "pending", expires_at: { $lte: now } })
      .sort({ expires_at: 1, _id: 1 })
      .limit(limit)
      .toArray()
  ).pipe(Effect.map((docs) => docs.map(inviteOf)))

/**
 * The invite moved from `from` (with its token, when the change names one), in the unit of work when there is one:
 * one conditional write, or why not (read after the write that did not apply).
 */
const transition = (
  collections: InviteCollections,
  id: InviteId,
  from: InviteState,
  to: InviteState,
  change: InviteChange
) =>
  Effect.gen(function* () {
    const options = yield* unitOptions
    const filter: Document = { _id: id, state: from }
    if (change.tokenHash !== undefined) filter.token_hash = change.tokenHash
    const changed = yield* tryMongo(() =>
      collections.invites.findOneAndUpdate(
        filter,
        { $set: { ...change.patch, state: to } },
        { ...options, returnDocument: "after" }
      )
    )
    if (changed !== null) return inviteOf(changed)
    const found = yield* tryMongo(() => collections.invites.findOne({ _id: id }, options))
    return yield* found === null
      ? Effect.fail(new InviteNotFound({ nanoid: id }))
      : Effect.fail(new StaleState({ resource: "invite", id, expected: from }))
  })

/** The MongoDB invites; indexes by team and by expiry are created at start. */
export const invites = Layer.effect(
  InviteRepository,
  Effect.gen(function* () {
    const { db, transaction } = yield* MongoDatabase
    const collections: InviteCollections = {
      transaction,
      invites: db.collection<InviteDocument>("invites")
    }
    yield* toPort(
      tryMongo(() =>
        Promise.all([
          collections.invites.createIndex({ team_nanoid: 1, state: 1, created_at: -1 }),
          collections.invites.createIndex({ state: 1, expires_at: 1 })
        ])
      )
    )
    return InviteRepository.of({
      create: (list) => toPort(create(collections, list)),
      findById: (id) => toPort(findById(collections, id)),
      listByTeams: (teams, states) => toPort(listByTeams(collections, teams, states)),
      listExpired: (now, limit) => toPort(listExpired(collections, now, limit)),
      transition: (id, from, to, change) => toPort(transition(collections, id, from, to, change))
    })
  })
)

/** Leases up to `limit` queued mails, oldest first. */
const claimMails = (
  leases: Leases.Leases<MailDocument>,
  { now, limit, leaseMillis }: { readonly now: number; readonly limit: number; readonly leaseMillis: number }
) =>
  Effect.gen(function* () {
    const claimed = []
    while (claimed.length < limit) {
      const taken = yield* leases.takeNext(
        { state: "queued" },
        { sort: { lease_until: 1, created: 1, _id: 1 }, now, until: now + leaseMillis }
      )
      if (taken === null) break
      const { mail, attempts } = claimedMailOf(taken.doc)
      claimed.push({ mail, attempts, lease: taken.lease })
    }
    return claimed
  })

/** The MongoDB mail outbox. */
export const mailOutbox = Layer.effect(
  MailOutbox,
  Effect.gen(function* () {
    const { db, transaction } = yield* MongoDatabase
    const col = db.collection<MailDocument>("mail_outbox")
    yield* toPort(tryMongo(() => col.createIndex({ state: 1, lease_until: 1, created: 1 })))
    const leases = Leases.on(col)
    return MailOutbox.of({
      // In one transaction, all or none: the unit's when there is one.
      enqueue: (mails) =>
        mails.length === 0
          ? Effect.void
          : Effect.flatMap(Clock.currentTimeMillis, (now) =>
              inTransaction(transaction, (session) =>
                tryMongo(() =>
                  col.insertMany(
                    mails.map((mail) => mailDocumentOf(mail, now)),
                    { session }
                  )
                )
              )
            ).pipe(Effect.asVoid, toPort),
      claim: (options) => toPort(claimMails(leases, options)),
      // A sent mail forgets its text: it holds the invite's single-use token.
      markSent: (id, token) =>
        toPort(leases.release({ _id: id, state: "queued" }, token, { state: "sent", "mail.text": "" })),
      retryAt: (id, token, options) =>
        toPort(
          leases.whileHeld({ _id: id, state: "queued" }, token, {
            $set: {
              state: options.giveUp ? "failed" : "queued",
              lease_until: options.at,
              last_error: options.error,
              ...(options.giveUp ? { "mail.text": "" } : {})
            },
            $inc: { attempts: 1 }
          })
        ),
      stateOf: (id) =>
        tryMongo(() => col.findOne({ _id: id })).pipe(
          Effect.map((doc) => (doc === null ? undefined : mailStateOf(doc).state)),
          toPort
        )
    })
  })
)

/** Both ports. */
export const layer = Layer.mergeAll(invites, mailOutbox)
