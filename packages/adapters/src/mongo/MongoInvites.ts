/**
 * Invites and the mail outbox in MongoDB (`invites`, `mail_outbox`, `_id` = id). Every invite step is one transaction
 * with what it writes besides: the mails it queues, the membership and user e-mail of an acceptance, and its events
 * (`event_outbox`). The state change is a conditional `updateOne` checked by `modifiedCount` (decision 0017). The mail
 * worker leases queued mails with `Leases.takeNext`; a failed mail is handed back with `lease_until` set to when it is
 * due again.
 */
import type { DomainEvent } from "@svc/domain/event"
import { type Invite, InviteNotFound, InviteRepository } from "@svc/domain/invite"
import { type Mail, MailOutbox } from "@svc/domain/mail"
import { AlreadyMember, type Membership } from "@svc/domain/membership"
import { StaleState } from "@svc/domain/StaleState"
import { Clock, Effect, Layer } from "effect"
import { type ClientSession, type Document, MongoServerError } from "mongodb"
import * as Leases from "./Leases.ts"
import { MongoDatabase } from "./MongoDatabase.ts"
import { numbered, type OutboxDocument, outboxCollection, outboxDocumentOf } from "./MongoEventOutbox.ts"
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

const inviteOf = (doc: Document | null): Invite | undefined => {
  if (doc === null) return undefined
  const { _id, ...invite } = doc
  return invite as Invite
}

const mailDocumentOf = (mail: Mail, now: number): MailDocument => ({
  _id: mail.id,
  mail,
  created: now,
  state: "queued",
  attempts: 0,
  lease_until: 0
})

/** Thrown inside a transaction to abort it: the membership exists already. */
class MembershipTaken extends Error {}

/** The MongoDB invites; indexes by team and by expiry are created at start. */
export const invites = Layer.effect(
  InviteRepository,
  Effect.gen(function* () {
    const { db, client } = yield* MongoDatabase
    const col = db.collection<InviteDocument>("invites")
    const mails = db.collection<MailDocument>("mail_outbox")
    const memberships = db.collection<Membership & { _id: string }>("memberships")
    const users = db.collection<{ _id: string; email: string }>("users")
    const outbox = db.collection<OutboxDocument>(outboxCollection)
    yield* Effect.promise(() => col.createIndex({ team_nanoid: 1, state: 1, created_at: -1 }))
    yield* Effect.promise(() => col.createIndex({ state: 1, expires_at: 1 }))
    const queue = async (list: ReadonlyArray<Mail>, now: number, session: ClientSession) => {
      if (list.length > 0)
        await mails.insertMany(
          list.map((mail) => mailDocumentOf(mail, now)),
          { session }
        )
    }
    const appendEvents = async (events: ReadonlyArray<DomainEvent>, session: ClientSession) => {
      // Numbered in the same transaction: each team's events carry their `sequence` (decision 0024).
      if (events.length > 0) {
        await outbox.insertMany((await numbered(db, events, session)).map(outboxDocumentOf), { session })
      }
    }

    return InviteRepository.of({
      create: (list, queued) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) =>
          inTransaction(client, async (session) => {
            if (list.length > 0) {
              await col.insertMany(
                list.map((invite) => ({ _id: invite.nanoid, ...invite })),
                { session }
              )
            }
            await queue(queued, now, session)
          })
        ),
      findById: (id) =>
        Effect.flatMap(
          Effect.promise(() => col.findOne({ _id: id })),
          (doc) => {
            const invite = inviteOf(doc)
            return invite === undefined ? Effect.fail(new InviteNotFound({ nanoid: id })) : Effect.succeed(invite)
          }
        ),
      listByTeams: (teams, states) =>
        teams.length === 0
          ? Effect.succeed([])
          : Effect.promise(() =>
              col
                .find({
                  team_nanoid: { $in: [...teams] },
                  ...(states.length === 0 ? {} : { state: { $in: [...states] } })
                })
                .sort({ created_at: -1, _id: -1 })
                .toArray()
            ).pipe(Effect.map((docs) => docs.map((d) => inviteOf(d) as Invite))),
      listExpired: (now, limit) =>
        Effect.promise(() =>
          col
            .find({ state: "pending", expires_at: { $lte: now } })
            .sort({ expires_at: 1, _id: 1 })
            .limit(limit)
            .toArray()
        ).pipe(Effect.map((docs) => docs.map((d) => inviteOf(d) as Invite))),
      transition: (id, from, to, change) =>
        Effect.gen(function* () {
          const now = yield* Clock.currentTimeMillis
          const outcome = yield* inTransaction(client, async (session) => {
            const membership = change.membership
            const filter: Document = { _id: id, state: from }
            if (change.tokenHash !== undefined) filter.token_hash = change.tokenHash
            // Checked before any write, so a refusal leaves nothing to undo; the conditional update below still
            // decides a race, and a concurrent membership insert aborts the transaction.
            const current = await col.findOne({ _id: id }, { session })
            if (current === null) return "missing" as const
            if ((await col.countDocuments(filter, { session })) !== 1) return "stale" as const
            if (
              membership !== undefined &&
              (await memberships.findOne(
                { team_nanoid: membership.team_nanoid, user_nanoid: membership.user_nanoid },
                { session }
              )) !== null
            ) {
              return "member" as const
            }
            const { modifiedCount } = await col.updateOne(filter, { $set: { ...change.patch, state: to } }, { session })
            if (modifiedCount !== 1) return "stale" as const
            if (membership !== undefined) {
              await memberships
                .insertOne(
                  { _id: membership.nanoid, ...membership, email: membership.email.toLowerCase() },
                  { session }
                )
                .catch((error: unknown) => {
                  throw error instanceof MongoServerError && error.code === 11000 ? new MembershipTaken() : error
                })
            }
            if (change.userEmail !== undefined) {
              await users.updateOne(
                { _id: change.userEmail.user },
                { $set: { email: change.userEmail.email } },
                { session }
              )
            }
            await appendEvents(change.events ?? [], session)
            await queue(change.mails ?? [], now, session)
            return inviteOf(await col.findOne({ _id: id }, { session })) as Invite
          }).pipe(
            Effect.catchDefect((defect) =>
              defect instanceof MembershipTaken ? Effect.succeed("member" as const) : Effect.die(defect)
            )
          )
          if (outcome === "missing") return yield* new InviteNotFound({ nanoid: id })
          if (outcome === "stale") return yield* new StaleState({ resource: "invite", id, expected: from })
          if (outcome === "member") {
            return yield* new AlreadyMember({
              team: change.membership?.team_nanoid ?? "",
              user: change.membership?.user_nanoid ?? ""
            })
          }
          return outcome
        })
    })
  })
)

/** The MongoDB mail outbox. */
export const mailOutbox = Layer.effect(
  MailOutbox,
  Effect.gen(function* () {
    const { db } = yield* MongoDatabase
    const col = db.collection<MailDocument>("mail_outbox")
    yield* Effect.promise(() => col.createIndex({ state: 1, lease_until: 1, created: 1 }))
    const leases = Leases.on(col)
    return MailOutbox.of({
      claim: ({ now, limit, leaseMillis }) =>
        Effect.promise(async () => {
          const claimed = []
          while (claimed.length < limit) {
            const doc = await leases.takeNext(
              { state: "queued" },
              { sort: { lease_until: 1, created: 1, _id: 1 }, now, until: now + leaseMillis }
            )
            if (doc === null) break
            claimed.push({
              mail: doc.mail,
              attempts: doc.attempts,
              lease: { holder: doc.lease_holder ?? "", until: doc.lease_until }
            })
          }
          return claimed
        }),
      // A sent mail forgets its text: it holds the invite's single-use token.
      markSent: (id, holder) =>
        Effect.promise(() => leases.release({ _id: id, state: "queued" }, holder, { state: "sent", "mail.text": "" })),
      retryAt: (id, holder, options) =>
        Effect.promise(() =>
          leases.whileHeld({ _id: id, state: "queued" }, holder, {
            $set: {
              state: options.giveUp ? "failed" : "queued",
              lease_until: options.at,
              last_error: options.error,
              ...(options.giveUp ? { "mail.text": "" } : {})
            },
            $unset: { lease_holder: "" },
            $inc: { attempts: 1 }
          })
        ),
      stateOf: (id) => Effect.promise(() => col.findOne({ _id: id })).pipe(Effect.map((doc) => doc?.state))
    })
  })
)

/** Both ports. */
export const layer = Layer.mergeAll(invites, mailOutbox)
