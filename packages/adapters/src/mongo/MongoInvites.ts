/**
 * Invites and the mail outbox in MongoDB (`invites`, `mail_outbox`, `_id` = id). Every invite step and every batch of
 * queued mails is one transaction, or part of the use case's unit of work when it runs in one (where the mails, an
 * acceptance's membership and user e-mail, and the events are written with it). The state change is a conditional
 * `updateOne` checked by `modifiedCount` (decision 0017). The mail worker leases queued mails with `Leases.takeNext`;
 * a failed mail is handed back with `lease_until` set to when it is due again.
 */
import type { InviteId, TeamId } from "@svc/domain/Ids"
import { Invite, type InviteChange, InviteNotFound, InviteRepository, type InviteState } from "@svc/domain/invite"
import { Mail, MailOutbox } from "@svc/domain/mail"
import { StaleState } from "@svc/domain/StaleState"
import { Clock, Effect, Layer, Schema } from "effect"
import type { ClientSession, Collection, Document, MongoClient } from "mongodb"
import * as Leases from "./Leases.ts"
import { MongoDatabase } from "./MongoDatabase.ts"
import { documentDecoder, recordDecoder } from "./MongoDocuments.ts"
import { inTransaction } from "./MongoTransaction.ts"

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

/** The collections the invites touch. */
interface InviteCollections {
  readonly client: MongoClient
  readonly invites: Collection<InviteDocument>
}

/** The invites, in one transaction. */
const create = (collections: InviteCollections, list: ReadonlyArray<Invite>) =>
  list.length === 0
    ? Effect.void
    : inTransaction(collections.client, async (session) => {
        await collections.invites.insertMany(
          list.map((invite) => ({ _id: invite.nanoid, ...invite })),
          { session }
        )
      })

const findById = (collections: InviteCollections, id: InviteId) =>
  Effect.flatMap(
    Effect.promise(() => collections.invites.findOne({ _id: id })),
    (doc) => (doc === null ? Effect.fail(new InviteNotFound({ nanoid: id })) : Effect.succeed(inviteOf(doc)))
  )

const listByTeams = (
  collections: InviteCollections,
  teams: ReadonlyArray<TeamId>,
  states: ReadonlyArray<InviteState>
) =>
  teams.length === 0
    ? Effect.succeed([])
    : Effect.promise(() =>
        collections.invites
          .find({
            team_nanoid: { $in: [...teams] },
            ...(states.length === 0 ? {} : { state: { $in: [...states] } })
          })
          .sort({ created_at: -1, _id: -1 })
          .toArray()
      ).pipe(Effect.map((docs) => docs.map(inviteOf)))

const listExpired = (collections: InviteCollections, now: string, limit: number) =>
  Effect.promise(() =>
    collections.invites
      .find({ state: "pending", expires_at: { $lte: now } })
      .sort({ expires_at: 1, _id: 1 })
      .limit(limit)
      .toArray()
  ).pipe(Effect.map((docs) => docs.map(inviteOf)))

/** Why a transition may not apply, read before the write; the conditional update still decides a race. */
const refusal = async (collections: InviteCollections, id: InviteId, filter: Document, session: ClientSession) => {
  if ((await collections.invites.findOne({ _id: id }, { session })) === null) return "missing" as const
  if ((await collections.invites.countDocuments(filter, { session })) !== 1) return "stale" as const
  return undefined
}

/** The transition's one transaction: the invite changed, or why not. */
const transitionWrites = (
  collections: InviteCollections,
  { id, from, to, change }: { id: InviteId; from: InviteState; to: InviteState; change: InviteChange }
) =>
  inTransaction(collections.client, async (session) => {
    const filter: Document = { _id: id, state: from }
    if (change.tokenHash !== undefined) filter.token_hash = change.tokenHash
    const refused = await refusal(collections, id, filter, session)
    if (refused !== undefined) return refused
    const { modifiedCount } = await collections.invites.updateOne(
      filter,
      { $set: { ...change.patch, state: to } },
      { session }
    )
    if (modifiedCount !== 1) return "stale" as const
    const changed = await collections.invites.findOne({ _id: id }, { session })
    return changed === null ? ("missing" as const) : inviteOf(changed)
  })

const transition = (
  collections: InviteCollections,
  id: InviteId,
  from: InviteState,
  to: InviteState,
  change: InviteChange
) =>
  Effect.gen(function* () {
    const outcome = yield* transitionWrites(collections, { id, from, to, change })
    if (outcome === "missing") return yield* new InviteNotFound({ nanoid: id })
    if (outcome === "stale") return yield* new StaleState({ resource: "invite", id, expected: from })
    return outcome
  })

/** The MongoDB invites; indexes by team and by expiry are created at start. */
export const invites = Layer.effect(
  InviteRepository,
  Effect.gen(function* () {
    const { db, client } = yield* MongoDatabase
    const collections: InviteCollections = {
      client,
      invites: db.collection<InviteDocument>("invites")
    }
    yield* Effect.promise(() => collections.invites.createIndex({ team_nanoid: 1, state: 1, created_at: -1 }))
    yield* Effect.promise(() => collections.invites.createIndex({ state: 1, expires_at: 1 }))
    return InviteRepository.of({
      create: (list) => create(collections, list),
      findById: (id) => findById(collections, id),
      listByTeams: (teams, states) => listByTeams(collections, teams, states),
      listExpired: (now, limit) => listExpired(collections, now, limit),
      transition: (id, from, to, change) => transition(collections, id, from, to, change)
    })
  })
)

/** Leases up to `limit` queued mails, oldest first. */
const claimMails = async (
  leases: ReturnType<typeof Leases.on<MailDocument>>,
  { now, limit, leaseMillis }: { readonly now: number; readonly limit: number; readonly leaseMillis: number }
) => {
  const claimed = []
  while (claimed.length < limit) {
    const taken = await leases.takeNext(
      { state: "queued" },
      { sort: { lease_until: 1, created: 1, _id: 1 }, now, until: now + leaseMillis }
    )
    if (taken === null) break
    const { mail, attempts } = claimedMailOf(taken.doc)
    claimed.push({ mail, attempts, lease: taken.lease })
  }
  return claimed
}

/** The MongoDB mail outbox. */
export const mailOutbox = Layer.effect(
  MailOutbox,
  Effect.gen(function* () {
    const { db, client } = yield* MongoDatabase
    const col = db.collection<MailDocument>("mail_outbox")
    yield* Effect.promise(() => col.createIndex({ state: 1, lease_until: 1, created: 1 }))
    const leases = Leases.on(col)
    return MailOutbox.of({
      // In one transaction, all or none: the unit's when there is one.
      enqueue: (mails) =>
        mails.length === 0
          ? Effect.void
          : Effect.flatMap(Clock.currentTimeMillis, (now) =>
              inTransaction(client, async (session) => {
                await col.insertMany(
                  mails.map((mail) => mailDocumentOf(mail, now)),
                  { session }
                )
              })
            ),
      claim: (options) => Effect.promise(() => claimMails(leases, options)),
      // A sent mail forgets its text: it holds the invite's single-use token.
      markSent: (id, token) =>
        Effect.promise(() => leases.release({ _id: id, state: "queued" }, token, { state: "sent", "mail.text": "" })),
      retryAt: (id, token, options) =>
        Effect.promise(() =>
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
        Effect.promise(() => col.findOne({ _id: id })).pipe(
          Effect.map((doc) => (doc === null ? undefined : mailStateOf(doc).state))
        )
    })
  })
)

/** Both ports. */
export const layer = Layer.mergeAll(invites, mailOutbox)
