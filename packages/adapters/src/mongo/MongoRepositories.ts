/**
 * The MongoDB adapter of the repository ports. Indexes are created when each layer starts; unique indexes carry the
 * identity rules (one user per wallet, one membership per team and user). Only operators jongodb supports are used.
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
import { isDuplicateKey } from "./MongoErrors.ts"
import { inUnitOr } from "./MongoTransaction.ts"

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
      insert: (company) => Effect.promise(() => col.insertOne({ _id: company.nanoid, ...company })).pipe(Effect.asVoid),
      findById: (id) => Effect.promise(() => col.findOne({ _id: id })).pipe(Effect.map(someOf(companyOf)))
    })
  })
)

/** Teams in `teams`, `_id` = nanoid, indexed by company. */
export const teams = Layer.effect(
  TeamRepository,
  Effect.gen(function* () {
    const { db } = yield* MongoDatabase
    const col = db.collection<Keyed>("teams")
    yield* Effect.promise(() => col.createIndex({ company_nanoid: 1 }))
    yield* Effect.promise(() => col.createIndex({ svc_account: 1 }))
    return TeamRepository.of({
      insert: (team) =>
        inUnitOr(
          (session) => Effect.promise(() => col.insertOne({ _id: team.nanoid, ...team }, { session })),
          Effect.promise(() => col.insertOne({ _id: team.nanoid, ...team }))
        ).pipe(Effect.asVoid),
      findById: (id) => Effect.promise(() => col.findOne({ _id: id })).pipe(Effect.map(someOf(teamOf))),
      findByIds: (ids) =>
        Effect.promise(() => col.find({ _id: { $in: ids } }).toArray()).pipe(Effect.map((docs) => docs.map(teamOf))),
      listByCompany: (company: CompanyId) =>
        Effect.promise(() => col.find({ company_nanoid: company }).toArray()).pipe(
          Effect.map((docs) => docs.map(teamOf))
        ),
      // Stored as the chain wrote it (checksummed); asked in any case.
      findByAccounts: (accounts) =>
        accounts.length === 0
          ? Effect.succeed([])
          : Effect.promise(() =>
              col
                .find({
                  svc_account: {
                    $in: accounts.flatMap((account) => [account, account.toLowerCase(), getAddress(account)])
                  }
                })
                .toArray()
            ).pipe(Effect.map((docs) => docs.map(teamOf))),
      update: (id: TeamId, changes) =>
        Effect.promise(() => col.findOneAndUpdate({ _id: id }, { $set: changes }, { returnDocument: "after" })).pipe(
          Effect.map(someOf(teamOf))
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
    yield* Effect.promise(() => col.createIndex({ wallet: 1 }, { unique: true }))
    yield* Effect.promise(() => col.createIndex({ email: 1 }))
    return UserRepository.of({
      insert: (user: User) =>
        Effect.tryPromise({
          try: () =>
            col.insertOne({
              _id: user.nanoid,
              ...user,
              // The contract keeps both lower-cased even for a caller that skipped decoding (a cast wallet).
              wallet: user.wallet.toLowerCase(),
              email: user.email.toLowerCase()
            }),
          catch: (error) => error
        }).pipe(
          Effect.asVoid,
          Effect.catch((error) =>
            isDuplicateKey(error)
              ? Effect.fail(new WalletTaken({ wallet: user.wallet.toLowerCase() }))
              : Effect.die(error)
          )
        ),
      setEmail: (user, email) =>
        inUnitOr(
          (session) =>
            Effect.promise(() => col.updateOne({ _id: user }, { $set: { email: email.toLowerCase() } }, { session })),
          Effect.promise(() => col.updateOne({ _id: user }, { $set: { email: email.toLowerCase() } }))
        ).pipe(Effect.asVoid),
      fillNames: (user, names) => {
        // The condition is the filter: a user with either name is not matched, so its name stays whole.
        const filter = { _id: user, first_name: "", last_name: "" }
        const update = { $set: { first_name: names.first_name, last_name: names.last_name } }
        return inUnitOr(
          (session) => Effect.promise(() => col.updateOne(filter, update, { session })),
          Effect.promise(() => col.updateOne(filter, update))
        ).pipe(Effect.asVoid)
      },
      findById: (id) => Effect.promise(() => col.findOne({ _id: id })).pipe(Effect.map(someOf(userOf))),
      findByIds: (ids) =>
        ids.length === 0
          ? Effect.succeed([])
          : Effect.promise(() => col.find({ _id: { $in: ids } }).toArray()).pipe(
              Effect.map((docs) => docs.map(userOf))
            ),
      findByWallet: (wallet) =>
        Effect.promise(() => col.findOne({ wallet: wallet.toLowerCase() })).pipe(Effect.map(someOf(userOf)))
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
 * unit's whole transaction, where the unit should decide.
 */
const insertMembership = (col: Collection<Keyed>, membership: Membership) => {
  const taken = new AlreadyMember({ team: membership.team_nanoid, user: membership.user_nanoid })
  // Another's insert of the same membership, committed meanwhile (a server that runs transactions at once), is a
  // duplicate key here too: the unit fails on it as on one found first.
  const insertedOr = (write: () => Promise<boolean>) =>
    Effect.tryPromise({ try: write, catch: (error) => error }).pipe(
      Effect.catch((error) => (isDuplicateKey(error) ? Effect.succeed(false) : Effect.die(error))),
      Effect.flatMap((inserted) => (inserted ? Effect.void : Effect.fail(taken)))
    )
  return inUnitOr(
    (session) =>
      insertedOr(async () => {
        const key = { team_nanoid: membership.team_nanoid, user_nanoid: membership.user_nanoid }
        if ((await col.findOne(key, { session })) !== null) return false
        await col.insertOne(membershipDocumentOf(membership), { session })
        return true
      }),
    insertedOr(async () => {
      await col.insertOne(membershipDocumentOf(membership))
      return true
    })
  )
}

/** What `listTeam` selects: the port's own options. */
type ListTeamOptions = Parameters<MembershipRepository["Service"]["listTeam"]>[1]

const listTeam = (col: Collection<Keyed>, team: TeamId, options: ListTeamOptions) =>
  Effect.promise(async () => {
    const filter: Document = { team_nanoid: team }
    if (options.emails !== undefined) filter.email = { $in: options.emails.map((e) => e.toLowerCase()) }
    if (options.roles !== undefined) filter.role = { $in: options.roles }
    let cursor = col.find(filter).sort({ created_at: 1, _id: 1 }).skip(options.offset)
    if (options.limit !== undefined) cursor = cursor.limit(options.limit)
    const [docs, total] = await Promise.all([cursor.toArray(), col.countDocuments(filter)])
    return { members: docs.map(membershipOf), total }
  })

/** One query for all the teams, not one count per team. */
const countByTeams = (col: Collection<Keyed>, teams: ReadonlyArray<TeamId>) =>
  Effect.promise(async () => {
    const counts = new Map<TeamId, number>(teams.map((t) => [t, 0]))
    const rows = col.find({ team_nanoid: { $in: [...teams] } }, { projection: { _id: 0, team_nanoid: 1 } })
    for await (const row of rows) {
      const { team_nanoid: team } = teamOfMembership(row)
      counts.set(team, (counts.get(team) ?? 0) + 1)
    }
    return counts
  })

const removeMembership = (col: Collection<Keyed>, team: TeamId, user: UserId) =>
  inUnitOr(
    (session) => Effect.promise(() => col.deleteOne({ team_nanoid: team, user_nanoid: user }, { session })),
    Effect.promise(() => col.deleteOne({ team_nanoid: team, user_nanoid: user }))
  ).pipe(Effect.map((removed) => removed.deletedCount > 0))

/** Memberships in `memberships`, `_id` = nanoid, unique on (team, user), ordered per team by joining time. */
export const memberships = Layer.effect(
  MembershipRepository,
  Effect.gen(function* () {
    const { db } = yield* MongoDatabase
    const col = db.collection<Keyed>("memberships")
    yield* Effect.promise(() => col.createIndex({ team_nanoid: 1, user_nanoid: 1 }, { unique: true }))
    yield* Effect.promise(() => col.createIndex({ team_nanoid: 1, created_at: 1, _id: 1 }))
    yield* Effect.promise(() => col.createIndex({ team_nanoid: 1, email: 1 }))
    yield* Effect.promise(() => col.createIndex({ user_nanoid: 1 }))
    return MembershipRepository.of({
      insert: (membership) => insertMembership(col, membership),
      find: (team, user) =>
        Effect.promise(() => col.findOne({ team_nanoid: team, user_nanoid: user })).pipe(
          Effect.map(someOf(membershipOf))
        ),
      listByUser: (user) =>
        Effect.promise(() => col.find({ user_nanoid: user }).sort({ created_at: 1, _id: 1 }).toArray()).pipe(
          Effect.map((docs) => docs.map(membershipOf))
        ),
      listTeam: (team, options) => listTeam(col, team, options),
      countByTeams: (teams) => countByTeams(col, teams),
      remove: (team, user) => removeMembership(col, team, user)
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
      getTeam: (team) => Effect.promise(() => teamCol.findOne({ _id: team })).pipe(Effect.map(someOf(teamSettingsOf))),
      putTeam: (team, value) =>
        Effect.promise(() => teamCol.updateOne({ _id: team }, { $set: value }, { upsert: true })).pipe(Effect.asVoid),
      getMember: (team, user) =>
        Effect.promise(() => memberCol.findOne({ _id: `${team}/${user}` })).pipe(Effect.map(someOf(memberSettingsOf))),
      putMember: (team, user, value) =>
        Effect.promise(() =>
          memberCol.updateOne(
            { _id: `${team}/${user}` },
            { $set: { ...value, team_nanoid: team, user_nanoid: user } },
            { upsert: true }
          )
        ).pipe(Effect.asVoid)
    })
  })
)

/** Every repository of this issue on MongoDB. */
export const layer = Layer.mergeAll(companies, teams, users, memberships, settings)
