/**
 * The MongoDB adapter of the repository ports. Indexes are created when each layer starts; unique indexes carry the
 * identity rules (one user per wallet, one membership per team and user: `MongoMemberships.ts`). Writes a unit of
 * work may make take its session (`unitOptions`).
 */

import { Company, CompanyRepository } from "@svc/domain/company"
import type { WalletAddress } from "@svc/domain/Evm"
import type { CompanyId, TeamId, UserId } from "@svc/domain/Ids"
import { StaleState } from "@svc/domain/StaleState"
import { MemberSettings, SettingsRepository, Team, TeamRepository, TeamSettings } from "@svc/domain/team"
import { User, UserRepository, WalletTaken } from "@svc/domain/user"
import { Effect, Layer, Option } from "effect"
import type { Collection, Document } from "mongodb"
import { getAddress } from "viem"
import { MongoDatabase } from "./MongoDatabase.ts"
import { recordDecoder } from "./MongoDocuments.ts"
import { toPort, tryMongo } from "./MongoErrors.ts"
import { memberships } from "./MongoMemberships.ts"
import { unitOptions } from "./MongoTransaction.ts"

/** A document keyed by a string id. */
type Keyed = Document & { _id: string }

const companyOf = recordDecoder("companies", Company)
const teamOf = recordDecoder("teams", Team)
const userOf = recordDecoder("users", User)
const teamSettingsOf = recordDecoder("team_settings", TeamSettings)
/** The member's settings; the document's `team_nanoid` and `user_nanoid` are not part of them. */
const memberSettingsOf = recordDecoder("member_settings", MemberSettings)

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

/** The payout address is the filter, so two writers never both move it (decision 0108). */
const setPayoutAddress = (
  col: Collection<Keyed>,
  user: UserId,
  from: WalletAddress | null,
  to: WalletAddress | null
) => {
  const filter = { _id: user, payout_address: from === null ? { $exists: false } : from.toLowerCase() }
  const update = to === null ? { $unset: { payout_address: "" } } : { $set: { payout_address: to.toLowerCase() } }
  return Effect.flatMap(unitOptions, (options) =>
    tryMongo(() => col.findOneAndUpdate(filter, update, { ...options, returnDocument: "after" }))
  ).pipe(
    Effect.flatMap((doc) =>
      doc === null
        ? Effect.fail(new StaleState({ resource: "user", id: user, expected: `payout address ${from}` }))
        : Effect.succeed(userOf(doc))
    )
  )
}

/** Users in `users`, `_id` = nanoid, unique on wallet, indexed by e-mail. */
export const users = Layer.effect(
  UserRepository,
  Effect.gen(function* () {
    const { db } = yield* MongoDatabase
    const col = db.collection<Keyed>("users")
    yield* toPort(
      tryMongo(() =>
        Promise.all([
          col.createIndex({ wallet: 1 }, { unique: true }),
          col.createIndex({ email: 1 }),
          col.createIndex({ payout_address: 1 }, { sparse: true })
        ])
      )
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
        tryMongo(() => col.findOne({ wallet: wallet.toLowerCase() })).pipe(Effect.map(someOf(userOf)), toPort),
      setPayoutAddress: (user, from, to) => toPort(setPayoutAddress(col, user, from, to)),
      findByPayoutAddress: (address) =>
        tryMongo(() =>
          col.find({ payout_address: address.toLowerCase() }).sort({ created_at: 1, _id: 1 }).toArray()
        ).pipe(
          Effect.map((docs) => docs.map(userOf)),
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
