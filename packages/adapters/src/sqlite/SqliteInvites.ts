/**
 * Invites and the mail outbox in SQLite (`invites`, `mail_outbox`). Every invite step is one transaction with what
 * it writes besides: the mails it queues, and the membership and user e-mail of an acceptance (its events are the use
 * case's, in the same unit of work). The mail worker leases queued mails with `Leases.takeMany`; a failed mail is handed back with
 * `lease_until` set to when it is due again.
 */

import type { DatabaseSync } from "node:sqlite"
import { Invite, InviteNotFound, InviteRepository } from "@svc/domain/invite"
import { Mail, MailOutbox } from "@svc/domain/mail"
import { AlreadyMember, type Membership } from "@svc/domain/membership"
import { StaleState } from "@svc/domain/StaleState"
import { Clock, Effect, Layer, Schema } from "effect"
import * as Leases from "./Leases.ts"
import * as RowDecoder from "./RowDecoder.ts"
import { SqliteDatabase } from "./SqliteDatabase.ts"

/** Why a transaction was rolled back: a condition that failed after the first write. */
class Rollback extends Error {}

const decodeInvite = RowDecoder.records("invites", Invite)
const inviteOf = (row: Record<string, unknown>): Invite => decodeInvite(row.record)
// Not memoised: a queued mail holds a single-use token, which no cache should keep.
const mailOf = RowDecoder.json("mail_outbox", Mail)
const mailStateOf = RowDecoder.rows(
  "mail_outbox",
  Schema.Struct({ state: Schema.Literals(["queued", "sent", "failed"]) })
)

/** The statements of the invites store, prepared once on the connection. */
const inviteStatements = (connection: DatabaseSync) => ({
  insert: connection.prepare(
    `INSERT INTO invites (nanoid, team_nanoid, state, token_hash, expires_at, created_at, record)
     VALUES (:nanoid, :team_nanoid, :state, :token_hash, :expires_at, :created_at, :record)`
  ),
  update: connection.prepare(
    `UPDATE invites SET state = :state, token_hash = :token_hash, expires_at = :expires_at, record = :record
     WHERE nanoid = :nanoid`
  ),
  find: connection.prepare("SELECT record FROM invites WHERE nanoid = ?"),
  byTeams: connection.prepare(
    `SELECT record FROM invites WHERE team_nanoid IN (SELECT value FROM json_each(:teams))
     AND (:states IS NULL OR state IN (SELECT value FROM json_each(:states)))
     ORDER BY created_at DESC, nanoid DESC`
  ),
  expired: connection.prepare(
    `SELECT record FROM invites WHERE state = 'pending' AND expires_at <= ? ORDER BY expires_at, nanoid LIMIT ?`
  ),
  queueMail: connection.prepare("INSERT INTO mail_outbox (id, created, record) VALUES (?, ?, ?)"),
  insertMembership: connection.prepare(
    `INSERT INTO memberships (nanoid, team_nanoid, user_nanoid, role, email, created_at, record)
     VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (team_nanoid, user_nanoid) DO NOTHING`
  ),
  setUserEmail: connection.prepare(
    "UPDATE users SET email = :email, record = json_set(record, '$.email', :email) WHERE nanoid = :user"
  )
})

/** The invites store: its statements and the database's transaction. */
interface InviteStore extends ReturnType<typeof inviteStatements> {
  readonly transaction: SqliteDatabase["Service"]["transaction"]
}

const queue = (store: InviteStore, mails: ReadonlyArray<Mail>, now: number) => {
  for (const mail of mails) store.queueMail.run(mail.id, now, JSON.stringify(mail))
}

const read = (store: InviteStore, id: string): Invite | undefined => {
  const row = store.find.get(id)
  return row === undefined ? undefined : inviteOf(row)
}

const columnsOf = (invite: Invite) => ({
  nanoid: invite.nanoid,
  state: invite.state,
  token_hash: invite.token_hash,
  expires_at: invite.expires_at,
  record: JSON.stringify(invite)
})

const create = (store: InviteStore, list: ReadonlyArray<Invite>, mails: ReadonlyArray<Mail>, now: number) =>
  store.transaction(() => {
    for (const invite of list) {
      store.insert.run({ ...columnsOf(invite), team_nanoid: invite.team_nanoid, created_at: invite.created_at })
    }
    queue(store, mails, now)
  })

type Transition = Parameters<InviteRepository["Service"]["transition"]>

/** Adds the accepted membership; one already there rolls the transition back. */
const addMembership = (store: InviteStore, membership: Membership) => {
  const { changes } = store.insertMembership.run(
    membership.nanoid,
    membership.team_nanoid,
    membership.user_nanoid,
    membership.role,
    membership.email,
    membership.created_at,
    JSON.stringify(membership)
  )
  if (changes !== 1) throw new Rollback("AlreadyMember")
}

/** The transition's writes, in one transaction: the invite moved, or why not. */
const move = (store: InviteStore, [id, from, to, change]: Transition, now: number) =>
  store.transaction(() => {
    const stored = read(store, id)
    if (stored === undefined) return "missing" as const
    if (stored.state !== from) return "stale" as const
    if (change.tokenHash !== undefined && stored.token_hash !== change.tokenHash) return "stale" as const
    const moved: Invite = { ...stored, ...change.patch, state: to }
    store.update.run(columnsOf(moved))
    if (change.membership !== undefined) addMembership(store, change.membership)
    if (change.userEmail !== undefined) store.setUserEmail.run(change.userEmail)
    queue(store, change.mails ?? [], now)
    return moved
  })

const transition = (
  store: InviteStore,
  args: Transition,
  now: number
): Effect.Effect<Invite, InviteNotFound | StaleState | AlreadyMember> => {
  const [id, from, , change] = args
  try {
    const outcome = move(store, args, now)
    if (outcome === "missing") return Effect.fail(new InviteNotFound({ nanoid: id }))
    if (outcome === "stale") return Effect.fail(new StaleState({ resource: "invite", id, expected: from }))
    return Effect.succeed(outcome)
  } catch (error) {
    if (error instanceof Rollback) {
      return Effect.fail(
        new AlreadyMember({ team: change.membership?.team_nanoid ?? "", user: change.membership?.user_nanoid ?? "" })
      )
    }
    throw error
  }
}

/** The SQLite invites. */
export const invites = Layer.effect(
  InviteRepository,
  Effect.gen(function* () {
    const { connection, transaction } = yield* SqliteDatabase
    const store: InviteStore = { ...inviteStatements(connection), transaction }
    return InviteRepository.of({
      create: (list, mails) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) => Effect.sync(() => create(store, list, mails, now))),
      findById: (id) =>
        Effect.suspend(() => {
          const invite = read(store, id)
          return invite === undefined ? Effect.fail(new InviteNotFound({ nanoid: id })) : Effect.succeed(invite)
        }),
      listByTeams: (teams, states) =>
        Effect.sync(() =>
          store.byTeams
            .all({ teams: JSON.stringify(teams), states: states.length === 0 ? null : JSON.stringify(states) })
            .map(inviteOf)
        ),
      listExpired: (now, limit) => Effect.sync(() => store.expired.all(now, limit).map(inviteOf)),
      transition: (...args) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) => Effect.suspend(() => transition(store, args, now)))
    })
  })
)

/** The SQLite mail outbox. */
export const mailOutbox = Layer.effect(
  MailOutbox,
  Effect.gen(function* () {
    const { connection, transaction } = yield* SqliteDatabase
    const queue = connection.prepare("INSERT INTO mail_outbox (id, created, record) VALUES (?, ?, ?)")
    const leases = Leases.on(connection, { table: "mail_outbox", row: "id = :id", key: "id" })
    const claim = leases.takeMany({
      when: "state = 'queued'",
      order: "lease_until, created, id",
      returning: "id, created, attempts, record, lease_holder, lease_until"
    })
    // A sent mail forgets its text: it holds the invite's single-use token.
    const sent = leases.release({
      set: "state = 'sent', record = json_set(record, '$.text', '')",
      when: "state = 'queued'"
    })
    const failed = leases.whileHeld({
      set: `attempts = attempts + 1, last_error = :error, lease_holder = NULL, lease_until = :at,
            state = CASE WHEN :giveUp = 1 THEN 'failed' ELSE 'queued' END,
            record = CASE WHEN :giveUp = 1 THEN json_set(record, '$.text', '') ELSE record END`,
      when: "state = 'queued'"
    })
    const stateOf = connection.prepare("SELECT state FROM mail_outbox WHERE id = ?")
    return MailOutbox.of({
      enqueue: (mails) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) =>
          Effect.sync(() =>
            transaction(() => {
              for (const mail of mails) queue.run(mail.id, now, JSON.stringify(mail))
            })
          )
        ),
      claim: ({ now, limit, leaseMillis }) =>
        Effect.sync(() =>
          claim({ now, until: now + leaseMillis, limit })
            .sort((a, b) => Number(a.created) - Number(b.created) || (String(a.id) < String(b.id) ? -1 : 1))
            .map((row) => ({
              mail: mailOf(row.record, String(row.id)),
              attempts: Number(row.attempts),
              lease: { holder: String(row.lease_holder), until: Number(row.lease_until) }
            }))
        ),
      markSent: (id, holder) => Effect.sync(() => sent({ id, holder })),
      retryAt: (id, holder, options) =>
        Effect.sync(() => failed({ id, holder, at: options.at, error: options.error, giveUp: options.giveUp ? 1 : 0 })),
      stateOf: (id) =>
        Effect.sync(() => {
          const row = stateOf.get(id)
          return row === undefined ? undefined : mailStateOf(row, id).state
        })
    })
  })
)

/** Both ports. */
export const layer = Layer.mergeAll(invites, mailOutbox)
