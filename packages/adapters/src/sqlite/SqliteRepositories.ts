/**
 * The SQLite adapter of the repository ports: companies, teams, users, memberships and settings. Records are JSON
 * beside the columns queries filter and sort on; unique constraints carry the identity rules (one user per wallet,
 * one membership per team and user). Lists of ids are bound as one JSON array (`json_each`), so every statement is
 * prepared once.
 */
import { Company, CompanyRepository } from "@svc/domain/company"
import { TeamId } from "@svc/domain/Ids"
import { AlreadyMember, MemberBlockMachine, Membership, MembershipRepository } from "@svc/domain/membership"
import { StaleState } from "@svc/domain/StaleState"
import { MemberSettings, SettingsRepository, Team, TeamRepository, TeamSettings } from "@svc/domain/team"
import { User, UserRepository, WalletTaken } from "@svc/domain/user"
import { Effect, Layer, Option, Schema } from "effect"
import * as RowDecoder from "./RowDecoder.ts"
import { SqliteDatabase } from "./SqliteDatabase.ts"

/** The record of a row (its `record` column), decoded; `undefined` for no row. */
const recordOf = <A>(decode: RowDecoder.RecordDecoder<A>, row: Record<string, unknown> | undefined): A | undefined =>
  row === undefined ? undefined : decode(row.record)

const recordsOf = <A>(decode: RowDecoder.RecordDecoder<A>, rows: ReadonlyArray<Record<string, unknown>>): Array<A> =>
  rows.map((row) => decode(row.record))

const companyOf = RowDecoder.records("companies", Company)
const teamOf = RowDecoder.records("teams", Team)
const userOf = RowDecoder.records("users", User)
const membershipOf = RowDecoder.records("memberships", Membership)
const teamSettingsOf = RowDecoder.records("team_settings", TeamSettings)
const memberSettingsOf = RowDecoder.records("member_settings", MemberSettings)
const countOf = RowDecoder.rows("memberships", Schema.Struct({ team_nanoid: TeamId, members: Schema.Number }))

/** Companies in `companies`. */
export const companies = Layer.effect(
  CompanyRepository,
  Effect.gen(function* () {
    const { connection } = yield* SqliteDatabase
    const insert = connection.prepare("INSERT INTO companies (nanoid, record) VALUES (?, ?)")
    const find = connection.prepare("SELECT record FROM companies WHERE nanoid = ?")
    return CompanyRepository.of({
      insert: (company) => Effect.sync(() => void insert.run(company.nanoid, JSON.stringify(company))),
      findById: (id) => Effect.sync(() => Option.fromNullishOr(recordOf(companyOf, find.get(id))))
    })
  })
)

/** Teams in `teams`, indexed by company. */
export const teams = Layer.effect(
  TeamRepository,
  Effect.gen(function* () {
    const { connection } = yield* SqliteDatabase
    const insert = connection.prepare("INSERT INTO teams (nanoid, company_nanoid, record) VALUES (?, ?, ?)")
    const find = connection.prepare("SELECT record FROM teams WHERE nanoid = ?")
    const findMany = connection.prepare("SELECT record FROM teams WHERE nanoid IN (SELECT value FROM json_each(?))")
    const byCompany = connection.prepare("SELECT record FROM teams WHERE company_nanoid = ? ORDER BY nanoid")
    // One statement: the merge happens in SQLite, atomically.
    const update = connection.prepare(
      "UPDATE teams SET record = json_patch(record, ?) WHERE nanoid = ? RETURNING record"
    )
    const byAccounts = connection.prepare(
      `SELECT record FROM teams
       WHERE lower(json_extract(record, '$.svc_account')) IN (SELECT value FROM json_each(?))`
    )
    return TeamRepository.of({
      insert: (team) => Effect.sync(() => void insert.run(team.nanoid, team.company_nanoid, JSON.stringify(team))),
      findById: (id) => Effect.sync(() => Option.fromNullishOr(recordOf(teamOf, find.get(id)))),
      findByIds: (ids) => Effect.sync(() => recordsOf(teamOf, findMany.all(JSON.stringify(ids)))),
      listByCompany: (company) => Effect.sync(() => recordsOf(teamOf, byCompany.all(company))),
      findByAccounts: (accounts) =>
        Effect.sync(() =>
          accounts.length === 0
            ? []
            : recordsOf(teamOf, byAccounts.all(JSON.stringify(accounts.map((account) => account.toLowerCase()))))
        ),
      update: (id, changes) =>
        Effect.sync(() => Option.fromNullishOr(recordOf(teamOf, update.get(JSON.stringify(changes), id))))
    })
  })
)

/** Users in `users`, unique on the lower-cased wallet, indexed by e-mail. */
export const users = Layer.effect(
  UserRepository,
  Effect.gen(function* () {
    const { connection } = yield* SqliteDatabase
    // A taken wallet is an answer (no row inserted); a taken id is still a constraint error, a defect.
    const insert = connection.prepare(
      `INSERT INTO users (nanoid, wallet, email, payout_address, record) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (wallet) DO NOTHING`
    )
    const find = connection.prepare("SELECT record FROM users WHERE nanoid = ?")
    const findMany = connection.prepare("SELECT record FROM users WHERE nanoid IN (SELECT value FROM json_each(?))")
    const byWallet = connection.prepare("SELECT record FROM users WHERE wallet = ?")
    const setEmail = connection.prepare(
      "UPDATE users SET email = :email, record = json_set(record, '$.email', :email) WHERE nanoid = :user"
    )
    // The column mirrors the record's field, for the lookup by payout address; both change in one statement.
    const setPayout = connection.prepare(
      `UPDATE users SET payout_address = :to,
         record = CASE WHEN :to IS NULL THEN json_remove(record, '$.payout_address')
           ELSE json_set(record, '$.payout_address', :to) END
       WHERE nanoid = :user AND payout_address IS :from
       RETURNING record`
    )
    const byPayout = connection.prepare(`SELECT record FROM users WHERE payout_address = ?
       ORDER BY json_extract(record, '$.created_at'), nanoid`)
    const fillNames = connection.prepare(
      `UPDATE users SET record = json_set(record, '$.first_name', :first, '$.last_name', :last)
       WHERE nanoid = :user AND json_extract(record, '$.first_name') = '' AND json_extract(record, '$.last_name') = ''`
    )
    return UserRepository.of({
      insert: (user: User) =>
        Effect.suspend(() => {
          const stored = { ...user, wallet: user.wallet.toLowerCase(), email: user.email.toLowerCase() }
          const payout = stored.payout_address?.toLowerCase() ?? null
          const { changes } = insert.run(stored.nanoid, stored.wallet, stored.email, payout, JSON.stringify(stored))
          return changes === 1 ? Effect.void : Effect.fail(new WalletTaken({ wallet: stored.wallet }))
        }),
      setEmail: (user, email) => Effect.sync(() => void setEmail.run({ user, email: email.toLowerCase() })),
      fillNames: (user, names) =>
        Effect.sync(() => void fillNames.run({ user, first: names.first_name, last: names.last_name })),
      findById: (id) => Effect.sync(() => Option.fromNullishOr(recordOf(userOf, find.get(id)))),
      findByIds: (ids) => Effect.sync(() => recordsOf(userOf, findMany.all(JSON.stringify(ids)))),
      findByWallet: (wallet) =>
        Effect.sync(() => Option.fromNullishOr(recordOf(userOf, byWallet.get(wallet.toLowerCase())))),
      setPayoutAddress: (user, from, to) =>
        Effect.suspend(() => {
          const moved = recordOf(userOf, setPayout.get({ user, from, to }))
          return moved === undefined
            ? Effect.fail(new StaleState({ resource: "user", id: user, expected: `payout address ${from}` }))
            : Effect.succeed(moved)
        }),
      findByPayoutAddress: (address) => Effect.sync(() => recordsOf(userOf, byPayout.all(address.toLowerCase())))
    })
  })
)

/** A member's block on SQLite (decision 0107): its moves, each from the state it names, and the marks left. */
const blockMoves = (
  connection: SqliteDatabase["Service"]["connection"]
): Pick<MembershipRepository["Service"], "moveBlock" | "pendingBlocks"> => {
  // The block's state is read where it is written: one conditional statement, so two writers never both move it.
  const moveBlock = connection.prepare(
    `UPDATE memberships SET record = CASE WHEN :block IS NULL THEN json_remove(record, '$.block')
       ELSE json_set(record, '$.block', json(:block)) END
     WHERE team_nanoid = :team AND user_nanoid = :user
       AND coalesce(json_extract(record, '$.block.state'), 'active') = :from
     RETURNING record`
  )
  const pendingBlocks = connection.prepare(
    `SELECT record FROM memberships
     WHERE json_extract(record, '$.block.state') = 'blocking' AND json_extract(record, '$.block.since') <= ?
     ORDER BY json_extract(record, '$.block.since'), nanoid LIMIT ?`
  )
  return {
    // A move the block machine lacks is a defect (decision 0091).
    moveBlock: (team, user, from, block) =>
      Effect.orDie(MemberBlockMachine.move(from, block?.state ?? "active")).pipe(
        Effect.andThen(() => {
          const moved = recordOf(
            membershipOf,
            moveBlock.get({ team, user, from, block: block === undefined ? null : JSON.stringify(block) })
          )
          return moved === undefined
            ? Effect.fail(new StaleState({ resource: "membership", id: `${team}/${user}`, expected: from }))
            : Effect.succeed(moved)
        })
      ),
    pendingBlocks: (before, limit) => Effect.sync(() => recordsOf(membershipOf, pendingBlocks.all(before, limit)))
  }
}

/** Memberships in `memberships`, unique on (team, user), ordered per team by joining time then id. */
export const memberships = Layer.effect(
  MembershipRepository,
  Effect.gen(function* () {
    const { connection } = yield* SqliteDatabase
    const insert = connection.prepare(
      `INSERT INTO memberships (nanoid, team_nanoid, user_nanoid, role, email, created_at, record)
       VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (team_nanoid, user_nanoid) DO NOTHING`
    )
    const find = connection.prepare("SELECT record FROM memberships WHERE team_nanoid = ? AND user_nanoid = ?")
    const byUser = connection.prepare(
      "SELECT record FROM memberships WHERE user_nanoid = ? ORDER BY created_at, nanoid"
    )
    const matching = `team_nanoid = :team
      AND (:emails IS NULL OR email IN (SELECT value FROM json_each(:emails)))
      AND (:roles IS NULL OR role IN (SELECT value FROM json_each(:roles)))`
    const page = connection.prepare(
      `SELECT record FROM memberships WHERE ${matching} ORDER BY created_at, nanoid LIMIT :limit OFFSET :offset`
    )
    const count = connection.prepare(`SELECT count(*) AS total FROM memberships WHERE ${matching}`)
    // The common case, a team's whole list: without the filters' subqueries SQLite reads it twice as fast.
    const whole = connection.prepare("SELECT record FROM memberships WHERE team_nanoid = ? ORDER BY created_at, nanoid")
    const counts = connection.prepare(
      `SELECT team_nanoid, count(*) AS members FROM memberships
       WHERE team_nanoid IN (SELECT value FROM json_each(?)) GROUP BY team_nanoid`
    )
    const remove = connection.prepare("DELETE FROM memberships WHERE team_nanoid = ? AND user_nanoid = ?")
    // A removal's mark (decision 0094): set once, kept until the membership goes or the chain refused.
    const mark = connection.prepare(
      `UPDATE memberships SET record = json_set(record, '$.removal_since', :at)
       WHERE team_nanoid = :team AND user_nanoid = :user AND json_extract(record, '$.removal_since') IS NULL`
    )
    const unmark = connection.prepare(
      `UPDATE memberships SET record = json_remove(record, '$.removal_since')
       WHERE team_nanoid = ? AND user_nanoid = ? AND json_extract(record, '$.removal_since') IS NOT NULL`
    )
    const pending = connection.prepare(
      `SELECT record FROM memberships WHERE json_extract(record, '$.removal_since') IS NOT NULL
         AND json_extract(record, '$.removal_since') <= ? ORDER BY json_extract(record, '$.removal_since') LIMIT ?`
    )
    return MembershipRepository.of({
      insert: (membership) =>
        Effect.suspend(() => {
          const stored = { ...membership, email: membership.email.toLowerCase() }
          const inserted = insert.run(
            stored.nanoid,
            stored.team_nanoid,
            stored.user_nanoid,
            stored.role,
            stored.email,
            stored.created_at,
            JSON.stringify(stored)
          ).changes
          return inserted === 1
            ? Effect.void
            : Effect.fail(new AlreadyMember({ team: membership.team_nanoid, user: membership.user_nanoid }))
        }),
      find: (team, user) => Effect.sync(() => Option.fromNullishOr(recordOf(membershipOf, find.get(team, user)))),
      markRemoval: (team, user, at) =>
        Effect.sync(() => mark.run({ team, user, at }).changes === 1 || find.get(team, user) !== undefined),
      clearRemoval: (team, user) => Effect.sync(() => void unmark.run(team, user)),
      pendingRemovals: (before, limit) => Effect.sync(() => recordsOf(membershipOf, pending.all(before, limit))),
      listByUser: (user) => Effect.sync(() => recordsOf(membershipOf, byUser.all(user))),
      listTeam: (team, options) =>
        Effect.sync(() => {
          const filter = {
            team,
            emails: options.emails === undefined ? null : JSON.stringify(options.emails.map((e) => e.toLowerCase())),
            roles: options.roles === undefined ? null : JSON.stringify(options.roles)
          }
          // The whole list, unfiltered or not, is its own count.
          const everything = options.limit === undefined && options.offset === 0
          const members = recordsOf(
            membershipOf,
            everything && filter.emails === null && filter.roles === null
              ? whole.all(team)
              : page.all({ ...filter, limit: options.limit ?? -1, offset: options.offset })
          )
          return { members, total: everything ? members.length : Number(count.get(filter)?.total ?? 0) }
        }),
      countByTeams: (teams) =>
        Effect.sync(() => {
          const result = new Map<TeamId, number>(teams.map((t) => [t, 0]))
          for (const row of counts.all(JSON.stringify(teams))) {
            const { team_nanoid, members } = countOf(row)
            result.set(team_nanoid, members)
          }
          return result
        }),
      remove: (team, user) => Effect.sync(() => remove.run(team, user).changes > 0),
      ...blockMoves(connection)
    })
  })
)

/** Settings in `team_settings` and `member_settings`; a put replaces the whole record. */
export const settings = Layer.effect(
  SettingsRepository,
  Effect.gen(function* () {
    const { connection } = yield* SqliteDatabase
    const getTeam = connection.prepare("SELECT record FROM team_settings WHERE team_nanoid = ?")
    const putTeam = connection.prepare(
      `INSERT INTO team_settings (team_nanoid, record) VALUES (?, ?)
       ON CONFLICT (team_nanoid) DO UPDATE SET record = excluded.record`
    )
    const getMember = connection.prepare("SELECT record FROM member_settings WHERE team_nanoid = ? AND user_nanoid = ?")
    const putMember = connection.prepare(
      `INSERT INTO member_settings (team_nanoid, user_nanoid, record) VALUES (?, ?, ?)
       ON CONFLICT (team_nanoid, user_nanoid) DO UPDATE SET record = excluded.record`
    )
    return SettingsRepository.of({
      getTeam: (team) => Effect.sync(() => Option.fromNullishOr(recordOf(teamSettingsOf, getTeam.get(team)))),
      putTeam: (team, value) => Effect.sync(() => void putTeam.run(team, JSON.stringify(value))),
      getMember: (team, user) =>
        Effect.sync(() => Option.fromNullishOr(recordOf(memberSettingsOf, getMember.get(team, user)))),
      putMember: (team, user, value) => Effect.sync(() => void putMember.run(team, user, JSON.stringify(value)))
    })
  })
)

/** Every repository on SQLite. */
export const layer = Layer.mergeAll(companies, teams, users, memberships, settings)
