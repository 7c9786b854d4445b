/**
 * Invites and the mail outbox in SQLite (`invites`, `mail_outbox`). Every invite step is one transaction with what
 * it writes besides: the mails it queues, the membership and user e-mail of an acceptance, and its events
 * (`event_outbox`). The mail worker leases queued mails with `Leases.takeMany`; a failed mail is handed back with
 * `lease_until` set to when it is due again.
 */
import type { DomainEvent } from "@svc/domain/event"
import type { InviteId } from "@svc/domain/Ids"
import { type Invite, InviteNotFound, InviteRepository } from "@svc/domain/invite"
import { type Mail, MailOutbox } from "@svc/domain/mail"
import { AlreadyMember } from "@svc/domain/membership"
import { StaleState } from "@svc/domain/StaleState"
import { Clock, Effect, Layer } from "effect"
import * as Leases from "./Leases.ts"
import { SqliteDatabase } from "./SqliteDatabase.ts"
import { appendOn } from "./SqliteEventOutbox.ts"

/** Why a transaction was rolled back: a condition that failed after the first write. */
class Rollback extends Error {}

/** The SQLite invites. */
export const invites = Layer.effect(
  InviteRepository,
  Effect.gen(function* () {
    const { connection, transaction } = yield* SqliteDatabase
    const insert = connection.prepare(
      `INSERT INTO invites (nanoid, team_nanoid, state, token_hash, expires_at, created_at, record)
       VALUES (:nanoid, :team_nanoid, :state, :token_hash, :expires_at, :created_at, :record)`
    )
    const update = connection.prepare(
      `UPDATE invites SET state = :state, token_hash = :token_hash, expires_at = :expires_at, record = :record
       WHERE nanoid = :nanoid`
    )
    const find = connection.prepare("SELECT record FROM invites WHERE nanoid = ?")
    const byTeams = connection.prepare(
      `SELECT record FROM invites WHERE team_nanoid IN (SELECT value FROM json_each(:teams))
       AND (:states IS NULL OR state IN (SELECT value FROM json_each(:states)))
       ORDER BY created_at DESC, nanoid DESC`
    )
    const expired = connection.prepare(
      `SELECT record FROM invites WHERE state = 'pending' AND expires_at <= ? ORDER BY expires_at, nanoid LIMIT ?`
    )
    const queueMail = connection.prepare("INSERT INTO mail_outbox (id, created, record) VALUES (?, ?, ?)")
    const insertMembership = connection.prepare(
      `INSERT INTO memberships (nanoid, team_nanoid, user_nanoid, role, email, created_at, record)
       VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (team_nanoid, user_nanoid) DO NOTHING`
    )
    const setUserEmail = connection.prepare(
      "UPDATE users SET email = :email, record = json_set(record, '$.email', :email) WHERE nanoid = :user"
    )
    const appendEvents = appendOn(connection, { ignoreDuplicates: false })
    const queue = (mails: ReadonlyArray<Mail>, now: number) => {
      for (const mail of mails) queueMail.run(mail.id, now, JSON.stringify(mail))
    }
    const read = (id: string): Invite | undefined => {
      const row = find.get(id)
      return row === undefined ? undefined : (JSON.parse(row.record as string) as Invite)
    }
    const write = (invite: Invite) => ({
      nanoid: invite.nanoid,
      state: invite.state,
      token_hash: invite.token_hash,
      expires_at: invite.expires_at,
      record: JSON.stringify(invite)
    })

    return InviteRepository.of({
      create: (list, mails) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) =>
          Effect.sync(() =>
            transaction(() => {
              for (const invite of list) {
                insert.run({ ...write(invite), team_nanoid: invite.team_nanoid, created_at: invite.created_at })
              }
              queue(mails, now)
            })
          )
        ),
      findById: (id) =>
        Effect.suspend(() => {
          const invite = read(id)
          return invite === undefined ? Effect.fail(new InviteNotFound({ nanoid: id })) : Effect.succeed(invite)
        }),
      listByTeams: (teams, states) =>
        Effect.sync(() =>
          byTeams
            .all({ teams: JSON.stringify(teams), states: states.length === 0 ? null : JSON.stringify(states) })
            .map((row) => JSON.parse(row.record as string) as Invite)
        ),
      listExpired: (now, limit) =>
        Effect.sync(() => expired.all(now, limit).map((row) => JSON.parse(row.record as string) as Invite)),
      transition: (id: InviteId, from, to, change) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) =>
          Effect.suspend((): Effect.Effect<Invite, InviteNotFound | StaleState | AlreadyMember> => {
            try {
              const outcome = transaction(() => {
                const stored = read(id)
                if (stored === undefined) return "missing" as const
                if (stored.state !== from) return "stale" as const
                if (change.tokenHash !== undefined && stored.token_hash !== change.tokenHash) return "stale" as const
                const moved: Invite = { ...stored, ...change.patch, state: to }
                update.run(write(moved))
                const membership = change.membership
                if (membership !== undefined) {
                  const { changes } = insertMembership.run(
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
                if (change.userEmail !== undefined) setUserEmail.run(change.userEmail)
                appendEvents(change.events ?? ([] as ReadonlyArray<DomainEvent>))
                queue(change.mails ?? [], now)
                return moved
              })
              if (outcome === "missing") return Effect.fail(new InviteNotFound({ nanoid: id }))
              if (outcome === "stale") return Effect.fail(new StaleState({ resource: "invite", id, expected: from }))
              return Effect.succeed(outcome)
            } catch (error) {
              if (error instanceof Rollback) {
                return Effect.fail(
                  new AlreadyMember({
                    team: change.membership?.team_nanoid ?? "",
                    user: change.membership?.user_nanoid ?? ""
                  })
                )
              }
              throw error
            }
          })
        )
    })
  })
)

/** The SQLite mail outbox. */
export const mailOutbox = Layer.effect(
  MailOutbox,
  Effect.gen(function* () {
    const { connection } = yield* SqliteDatabase
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
      claim: ({ now, limit, leaseMillis }) =>
        Effect.sync(() =>
          claim({ now, until: now + leaseMillis, limit })
            .sort((a, b) => Number(a.created) - Number(b.created) || (String(a.id) < String(b.id) ? -1 : 1))
            .map((row) => ({
              mail: JSON.parse(row.record as string) as Mail,
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
          return row === undefined ? undefined : (row.state as "queued" | "sent" | "failed")
        })
    })
  })
)

/** Both ports. */
export const layer = Layer.mergeAll(invites, mailOutbox)
