/**
 * Invites and the mail outbox in SQLite (`invites`, `mail_outbox`). Every invite step and every batch of queued mails
 * is one transaction, which joins the use case's unit of work (where the mails, an acceptance's membership and user
 * e-mail, and the events are written with it). The mail worker leases queued mails with `Leases.takeMany`; a failed
 * mail is handed back with `lease_until` set to when it is due again.
 */

import type { DatabaseSync } from "node:sqlite"
import { Invite, InviteNotFound, InviteRepository } from "@svc/domain/invite"
import { Mail, MailOutbox } from "@svc/domain/mail"
import { StaleState } from "@svc/domain/StaleState"
import { Clock, Effect, Layer, Schema } from "effect"
import * as Leases from "./Leases.ts"
import * as RowDecoder from "./RowDecoder.ts"
import { SqliteDatabase } from "./SqliteDatabase.ts"

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
  )
})

/** The invites store: its statements and the database's transaction. */
interface InviteStore extends ReturnType<typeof inviteStatements> {
  readonly transaction: SqliteDatabase["Service"]["transaction"]
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

const create = (store: InviteStore, list: ReadonlyArray<Invite>) =>
  store.transaction(() => {
    for (const invite of list) {
      store.insert.run({ ...columnsOf(invite), team_nanoid: invite.team_nanoid, created_at: invite.created_at })
    }
  })

type Transition = Parameters<InviteRepository["Service"]["transition"]>

/** The transition, in one transaction: the invite moved, or why not. */
const move = (store: InviteStore, [id, from, to, change]: Transition) =>
  store.transaction(() => {
    const stored = read(store, id)
    if (stored === undefined) return "missing" as const
    if (stored.state !== from) return "stale" as const
    if (change.tokenHash !== undefined && stored.token_hash !== change.tokenHash) return "stale" as const
    const moved: Invite = { ...stored, ...change.patch, state: to }
    store.update.run(columnsOf(moved))
    return moved
  })

const transition = (store: InviteStore, args: Transition): Effect.Effect<Invite, InviteNotFound | StaleState> => {
  const [id, from] = args
  const outcome = move(store, args)
  if (outcome === "missing") return Effect.fail(new InviteNotFound({ nanoid: id }))
  if (outcome === "stale") return Effect.fail(new StaleState({ resource: "invite", id, expected: from }))
  return Effect.succeed(outcome)
}

/** The SQLite invites. */
export const invites = Layer.effect(
  InviteRepository,
  Effect.gen(function* () {
    const { connection, transaction } = yield* SqliteDatabase
    const store: InviteStore = { ...inviteStatements(connection), transaction }
    return InviteRepository.of({
      create: (list) => Effect.sync(() => create(store, list)),
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
      transition: (...args) => Effect.suspend(() => transition(store, args))
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
      returning: "id, created, attempts, record, lease_until"
    })
    // A sent mail forgets its text: it holds the invite's single-use token.
    const sent = leases.release({
      set: "state = 'sent', record = json_set(record, '$.text', '')",
      when: "state = 'queued'"
    })
    const failed = leases.whileHeld({
      set: `attempts = attempts + 1, last_error = :error, lease_until = :at,
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
              lease: Leases.leaseOf(row, Number(row.lease_until))
            }))
        ),
      markSent: (id, token) => Effect.sync(() => sent({ id, token })),
      retryAt: (id, token, options) =>
        Effect.sync(() => failed({ id, token, at: options.at, error: options.error, giveUp: options.giveUp ? 1 : 0 })),
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
