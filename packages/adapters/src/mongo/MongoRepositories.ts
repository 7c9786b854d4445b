/**
 * The MongoDB adapter of the repository ports. Indexes are created when each layer starts; unique indexes carry the
 * identity rules (one user per wallet, one membership per team and user). Writes a unit of work may make take its
 * session (`unitOptions`).
 */

import { Company, CompanyRepository } from "@svc/domain/company"
import { type CompanyId, TeamId, type UserId } from "@svc/domain/Ids"
import { AlreadyMember, Membership, MembershipRepository } from "@svc/domain/membership"
import { MemberSettings, SettingsRepository, Team, TeamRepository, TeamSettings } from "@svc/domain/team"
import { User, UserRepository, WalletTaken } from "@svc/domain/user"
import { Effect, Layer, Option, Schema } from "effect"
import type { Collection, Document } from "mongodb"
import { getAddress } from "viem"
import { MongoDatabase } from "./MongoDatabase.ts"
import { documentDecoder, recordDecoder } from "./MongoDocuments.ts"
import { toPort, tryMongo } from "./MongoErrors.ts"
import { unitOptions } from "./MongoTransaction.ts"

/** A document keyed by a string id. */
type Keyed = Document & { _id: string }

const companyOf = recordDecoder("companies", Company)
const teamOf = recordDecoder("teams", Team)
const userOf = recordDecoder("users", User)
const membershipOf = recordDecoder("memberships", Membership)
const teamSettingsOf = recordDecoder("team_settings", TeamSettings)
/** The member's settings; the document's `team_nanoid` and `user_nanoid` are not part of them. */
const memberSettingsOf = recordDecoder("member_settings", MemberSettings)
/** What `countByTeams` reads of a membership. */
const teamOfMembership = documentDecoder("memberships", Schema.Struct({ team_nanoid: TeamId }))

/** The record of `doc`, if there is one. */
const someOf =
  <A>(decode: (doc: Document) => A) =>
  (doc: Document | null): Option.Option<A> =>
    doc === null ? Option.none() : Option.some(decode(doc))

/** Companies in `companies`, `_id` = nanoid. */
export const companies = Layer.effect(
  CompanyRepository,
  Effect.gen(function* () {
    const { db } = yield* MongoDatabase
    const col = db.collection<Keyed>("companies")
    return CompanyRepository.of({
      insert: (company) =>
        tryMongo(() => col.insertOne({ _id: company.nanoid, ...company })).pipe(Effect.asVoid, toPort),
      findById: (id) => tryMongo(() => col.findOne({ _id: id })).pipe(Effect.map(someOf(companyOf)), toPort)
    })
  })
)

/** Teams in `teams`, `_id` = nanoid, indexed by company. */
export const teams = Layer.effect(
  TeamRepository,
  Effect.gen(function* () {
    const { db } = yield* MongoDatabase
    const col = db.collection<Keyed>("teams")
    yield* toPort(
      tryMongo(() => Promise.all([col.createIndex({ company_nanoid: 1 }), col.createIndex({ svc_account: 1 })]))
    )
    return TeamRepository.of({
      insert: (team) =>
        Effect.flatMap(unitOptions, (options) =>
          tryMongo(() => col.insertOne({ _id: team.nanoid, ...team }, options))
        ).pipe(Effect.asVoid, toPort),
      findById: (id) => tryMongo(() => col.findOne({ _id: id })).pipe(Effect.map(someOf(teamOf)), toPort),
      findByIds: (ids) =>
        tryMongo(() => col.find({ _id: { $in: ids } }).toArray()).pipe(
          Effect.map((docs) => docs.map(teamOf)),
          toPort
        ),
      listByCompany: (company: CompanyId) =>
        tryMongo(() => col.find({ company_nanoid: company }).toArray()).pipe(
          Effect.map((docs) => docs.map(teamOf)),
          toPort
        ),
      // Stored as the chain wrote it (checksummed); asked in any case.
      findByAccounts: (accounts) =>
        accounts.length === 0
          ? Effect.succeed([])
          : tryMongo(() =>
              col
                .find({
                  svc_account: {
                    $in: accounts.flatMap((account) => [account, account.toLowerCase(), getAddress(account)])
                  }
                })
                .toArray()
            ).pipe(
              Effect.map((docs) => docs.map(teamOf)),
              toPort
            ),
      update: (id: TeamId, changes) =>
        tryMongo(() => col.findOneAndUpdate({ _id: id }, { $set: changes }, { returnDocument: "after" })).pipe(
          Effect.map(someOf(teamOf)),
          toPort
        )
    })
  })
)

/** Users in `users`, `_id` = nanoid, unique on wallet, indexed by e-mail. */
export const users = Layer.effect(
  UserRepository,
  Effect.gen(function* () {
    const { db } = yield* MongoDatabase
    const col = db.collection<Keyed>("users")
    yield* toPort(
      tryMongo(() => Promise.all([col.createIndex({ wallet: 1 }, { unique: true }), col.createIndex({ email: 1 })]))
    )
    return UserRepository.of({
      insert: (user: User) =>
        tryMongo(() =>
          col.insertOne({
            _id: user.nanoid,
            ...user,
            // The contract keeps both lower-cased even for a caller that skipped decoding (a cast wallet).
            wallet: user.wallet.toLowerCase(),
            email: user.email.toLowerCase()
          })
        ).pipe(
          Effect.asVoid,
          Effect.catchTag("DuplicateKey", () => Effect.fail(new WalletTaken({ wallet: user.wallet.toLowerCase() }))),
          toPort
        ),
      setEmail: (user, email) =>
        Effect.flatMap(unitOptions, (options) =>
          tryMongo(() => col.updateOne({ _id: user }, { $set: { email: email.toLowerCase() } }, options))
        ).pipe(Effect.asVoid, toPort),
      fillNames: (user, names) => {
        // The condition is the filter: a user with either name is not matched, so its name stays whole.
        const filter = { _id: user, first_name: "", last_name: "" }
        const update = { $set: { first_name: names.first_name, last_name: names.last_name } }
        return Effect.flatMap(unitOptions, (options) => tryMongo(() => col.updateOne(filter, update, options))).pipe(
          Effect.asVoid,
          toPort
        )
      },
      findById: (id) => tryMongo(() => col.findOne({ _id: id })).pipe(Effect.map(someOf(userOf)), toPort),
      findByIds: (ids) =>
        ids.length === 0
          ? Effect.succeed([])
          : tryMongo(() => col.find({ _id: { $in: ids } }).toArray()).pipe(
              Effect.map((docs) => docs.map(userOf)),
              toPort
            ),
      findByWallet: (wallet) =>
        tryMongo(() => col.findOne({ wallet: wallet.toLowerCase() })).pipe(Effect.map(someOf(userOf)), toPort)
    })
  })
)

const membershipDocumentOf = (membership: Membership) => ({
  _id: membership.nanoid,
  ...membership,
  email: membership.email.toLowerCase()
})

/**
 * Adds the membership, or `AlreadyMember`. In a unit of work it is looked for first: a duplicate key would abort the
 * unit's whole transaction, where the unit should decide. Another's insert of the same membership, committed meanwhile,
 * is a duplicate key here too: the unit fails on it as on one found first.
 */
const insertMembership = (col: Collection<Keyed>, membership: Membership) =>
  Effect.gen(function* () {
    const options = yield* unitOptions
    const key = { team_nanoid: membership.team_nanoid, user_nanoid: membership.user_nanoid }
    const found = options.session === undefined ? null : yield* tryMongo(() => col.findOne(key, options))
    if (found === null) {
      const inserted = yield* tryMongo(() => col.insertOne(membershipDocumentOf(membership), options)).pipe(
        Effect.as(true),
        Effect.catchTag("DuplicateKey", () => Effect.succeed(false))
      )
      if (inserted) return
    }
    return yield* new AlreadyMember({ team: membership.team_nanoid, user: membership.user_nanoid })
  })

/** What `listTeam` selects: the port's own options. */
type ListTeamOptions = Parameters<MembershipRepository["Service"]["listTeam"]>[1]

const listTeam = (col: Collection<Keyed>, team: TeamId, options: ListTeamOptions) => {
  const filter: Document = { team_nanoid: team }
  if (options.emails !== undefined) filter.email = { $in: options.emails.map((e) => e.toLowerCase()) }
  if (options.roles !== undefined) filter.role = { $in: options.roles }
  return tryMongo(() => {
    let cursor = col.find(filter).sort({ created_at: 1, _id: 1 }).skip(options.offset)
    if (options.limit !== undefined) cursor = cursor.limit(options.limit)
    return Promise.all([cursor.toArray(), col.countDocuments(filter)])
  }).pipe(Effect.map(([docs, total]) => ({ members: docs.map(membershipOf), total })))
}

/** One query for all the teams, not one count per team. */
const countByTeams = (col: Collection<Keyed>, teams: ReadonlyArray<TeamId>) =>
  tryMongo(() =>
    col.find({ team_nanoid: { $in: [...teams] } }, { projection: { _id: 0, team_nanoid: 1 } }).toArray()
  ).pipe(
    Effect.map((rows) => {
      const counts = new Map<TeamId, number>(teams.map((t) => [t, 0]))
      for (const row of rows) {
        const { team_nanoid: found } = teamOfMembership(row)
        counts.set(found, (counts.get(found) ?? 0) + 1)
      }
      return counts
    })
  )

const removeMembership = (col: Collection<Keyed>, team: TeamId, user: UserId) =>
  Effect.flatMap(unitOptions, (options) =>
    tryMongo(() => col.deleteOne({ team_nanoid: team, user_nanoid: user }, options))
  ).pipe(Effect.map((removed) => removed.deletedCount > 0))

/** Memberships in `memberships`, `_id` = nanoid, unique on (team, user), ordered per team by joining time. */
export const memberships = Layer.effect(
  MembershipRepository,
  Effect.gen(function* () {
    const { db } = yield* MongoDatabase
    const col = db.collection<Keyed>("memberships")
    yield* toPort(
      tryMongo(() =>
        Promise.all([
          col.createIndex({ team_nanoid: 1, user_nanoid: 1 }, { unique: true }),
          col.createIndex({ team_nanoid: 1, created_at: 1, _id: 1 }),
          col.createIndex({ team_nanoid: 1, email: 1 }),
          col.createIndex({ user_nanoid: 1 }),
          col.createIndex({ removal_since: 1 }, { sparse: true })
        ])
      )
    )
    return MembershipRepository.of({
      insert: (membership) => toPort(insertMembership(col, membership)),
      find: (team, user) =>
        tryMongo(() => col.findOne({ team_nanoid: team, user_nanoid: user })).pipe(
          Effect.map(someOf(membershipOf)),
          toPort
        ),
      listByUser: (user) =>
        tryMongo(() => col.find({ user_nanoid: user }).sort({ created_at: 1, _id: 1 }).toArray()).pipe(
          Effect.map((docs) => docs.map(membershipOf)),
          toPort
        ),
      listTeam: (team, options) => toPort(listTeam(col, team, options)),
      countByTeams: (teams) => toPort(countByTeams(col, teams)),
      remove: (team, user) => toPort(removeMembership(col, team, user)),
      // A removal's mark (decision 0094): set once, kept until the membership goes or the chain refused.
      markRemoval: (team, user, at) =>
        Effect.gen(function* () {
          yield* tryMongo(() =>
            col.updateOne(
              { team_nanoid: team, user_nanoid: user, removal_since: { $exists: false } },
              { $set: { removal_since: at } }
            )
          )
          return (yield* tryMongo(() => col.findOne({ team_nanoid: team, user_nanoid: user }))) !== null
        }).pipe(toPort),
      clearRemoval: (team, user) =>
        tryMongo(() => col.updateOne({ team_nanoid: team, user_nanoid: user }, { $unset: { removal_since: "" } })).pipe(
          Effect.asVoid,
          toPort
        ),
      pendingRemovals: (before, limit) =>
        tryMongo(() =>
          col
            .find({ removal_since: { $lte: before } })
            .sort({ removal_since: 1 })
            .limit(limit)
            .toArray()
        ).pipe(
          Effect.map((docs) => docs.map(membershipOf)),
          toPort
        )
    })
  })
)

/** Settings in `team_settings` (`_id` = team) and `member_settings` (`_id` = team/user). */
export const settings = Layer.effect(
  SettingsRepository,
  Effect.gen(function* () {
    const { db } = yield* MongoDatabase
    const teamCol = db.collection<Keyed>("team_settings")
    const memberCol = db.collection<Keyed>("member_settings")
    return SettingsRepository.of({
      getTeam: (team) =>
        tryMongo(() => teamCol.findOne({ _id: team })).pipe(Effect.map(someOf(teamSettingsOf)), toPort),
      putTeam: (team, value) =>
        tryMongo(() => teamCol.updateOne({ _id: team }, { $set: value }, { upsert: true })).pipe(Effect.asVoid, toPort),
      getMember: (team, user) =>
        tryMongo(() => memberCol.findOne({ _id: `${team}/${user}` })).pipe(
          Effect.map(someOf(memberSettingsOf)),
          toPort
        ),
      putMember: (team, user, value) =>
        tryMongo(() =>
          memberCol.updateOne(
            { _id: `${team}/${user}` },
            { $set: { ...value, team_nanoid: team, user_nanoid: user } },
            { upsert: true }
          )
        ).pipe(Effect.asVoid, toPort)
    })
  })
)

/** Every repository of this issue on MongoDB. */
export const layer = Layer.mergeAll(companies, teams, users, memberships, settings)
