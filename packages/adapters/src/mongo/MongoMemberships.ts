/**
 * Memberships on MongoDB (`memberships`, `_id` = nanoid): unique on (team, user), ordered per team by joining time, a
 * member's block moved only from the state it is in (decision 0107). Writes a unit of work may make take its session
 * (`unitOptions`).
 */
import { TeamId, type UserId } from "@svc/domain/Ids"
import {
  AlreadyMember,
  type BlockState,
  type MemberBlock,
  MemberBlockMachine,
  Membership,
  MembershipRepository
} from "@svc/domain/membership"
import { StaleState } from "@svc/domain/StaleState"
import { Effect, Layer, Option, Schema } from "effect"
import type { Collection, Document } from "mongodb"
import { MongoDatabase } from "./MongoDatabase.ts"
import { documentDecoder, recordDecoder } from "./MongoDocuments.ts"
import { toPort, tryMongo } from "./MongoErrors.ts"
import { unitOptions } from "./MongoTransaction.ts"

/** A document keyed by a string id. */
type Keyed = Document & { _id: string }

const membershipOf = recordDecoder("memberships", Membership)
/** What `countByTeams` reads of a membership. */
const teamOfMembership = documentDecoder("memberships", Schema.Struct({ team_nanoid: TeamId }))

/** The record of `doc`, if there is one. */
const someOf =
  <A>(decode: (doc: Document) => A) =>
  (doc: Document | null): Option.Option<A> =>
    doc === null ? Option.none() : Option.some(decode(doc))

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

/**
 * The block's state is the filter, so two writers never both move it; a move the block machine lacks is a defect
 * (decisions 0091 and 0107).
 */
const moveBlock = (
  col: Collection<Keyed>,
  team: TeamId,
  user: UserId,
  from: BlockState,
  block: MemberBlock | undefined
) => {
  const to = Effect.orDie(MemberBlockMachine.move(from, block?.state ?? "active"))
  const filter: Document = {
    team_nanoid: team,
    user_nanoid: user,
    ...(from === "active" ? { block: { $exists: false } } : { "block.state": from })
  }
  const update = block === undefined ? { $unset: { block: "" } } : { $set: { block } }
  return to.pipe(
    Effect.andThen(unitOptions),
    Effect.flatMap((options) =>
      tryMongo(() => col.findOneAndUpdate(filter, update, { ...options, returnDocument: "after" }))
    ),
    Effect.flatMap((doc) =>
      doc === null
        ? Effect.fail(new StaleState({ resource: "membership", id: `${team}/${user}`, expected: from }))
        : Effect.succeed(membershipOf(doc))
    )
  )
}

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
          col.createIndex({ removal_since: 1 }, { sparse: true }),
          col.createIndex({ "block.state": 1, "block.since": 1 })
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
        ),
      moveBlock: (team, user, from, block) => toPort(moveBlock(col, team, user, from, block)),
      pendingBlocks: (before, limit) =>
        tryMongo(() =>
          col
            .find({ "block.state": "blocking", "block.since": { $lte: before } })
            .sort({ "block.since": 1, _id: 1 })
            .limit(limit)
            .toArray()
        ).pipe(
          Effect.map((docs) => docs.map(membershipOf)),
          toPort
        )
    })
  })
)
