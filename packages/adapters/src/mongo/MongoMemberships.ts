/**
 * Memberships on MongoDB (`memberships`, `_id` = nanoid): unique on (team, user), ordered per team by joining time, a
 * member's block moved only from the state it is in (decision 0107). Only operators jongodb supports are used.
 */
import { TeamId, type UserId } from "@svc/domain/Ids"
import {
  AlreadyMember,
  type BlockState,
  type MemberBlock,
  Membership,
  MembershipRepository
} from "@svc/domain/membership"
import { StaleState } from "@svc/domain/StaleState"
import { Effect, Layer, Option, Schema } from "effect"
import type { Collection, Document } from "mongodb"
import { MongoDatabase } from "./MongoDatabase.ts"
import { documentDecoder, recordDecoder } from "./MongoDocuments.ts"
import { isDuplicateKey } from "./MongoErrors.ts"
import { inUnitOr } from "./MongoTransaction.ts"

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

/** The block's state is the filter, so two writers never both move it (decision 0107). */
const moveBlock = (
  col: Collection<Keyed>,
  team: TeamId,
  user: UserId,
  from: BlockState,
  block: MemberBlock | undefined
) => {
  const filter: Document = {
    team_nanoid: team,
    user_nanoid: user,
    ...(from === "active" ? { block: { $exists: false } } : { "block.state": from })
  }
  const update = block === undefined ? { $unset: { block: "" } } : { $set: { block } }
  return inUnitOr(
    (session) => Effect.promise(() => col.findOneAndUpdate(filter, update, { returnDocument: "after", session })),
    Effect.promise(() => col.findOneAndUpdate(filter, update, { returnDocument: "after" }))
  ).pipe(
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
    yield* Effect.promise(() => col.createIndex({ team_nanoid: 1, user_nanoid: 1 }, { unique: true }))
    yield* Effect.promise(() => col.createIndex({ team_nanoid: 1, created_at: 1, _id: 1 }))
    yield* Effect.promise(() => col.createIndex({ team_nanoid: 1, email: 1 }))
    yield* Effect.promise(() => col.createIndex({ user_nanoid: 1 }))
    yield* Effect.promise(() => col.createIndex({ "block.state": 1, "block.since": 1 }))
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
      remove: (team, user) => removeMembership(col, team, user),
      moveBlock: (team, user, from, block) => moveBlock(col, team, user, from, block),
      pendingBlocks: (before, limit) =>
        Effect.promise(() =>
          col
            .find({ "block.state": "blocking", "block.since": { $lte: before } })
            .sort({ "block.since": 1, _id: 1 })
            .limit(limit)
            .toArray()
        ).pipe(Effect.map((docs) => docs.map(membershipOf)))
    })
  })
)
