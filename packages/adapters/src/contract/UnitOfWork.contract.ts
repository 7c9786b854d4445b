/**
 * The contract of `UnitOfWork`: what a unit writes through the storage ports and the events it appends commit
 * together when it succeeds, and none of it when it fails or dies; a unit inside another joins it; other fibers'
 * writes meanwhile are their own.
 */
import { assert, describe, it } from "@effect/vitest"
import { EventOutbox } from "@svc/domain/event"
import { MembershipRepository } from "@svc/domain/membership"
import { StaleState } from "@svc/domain/StaleState"
import { TeamRepository } from "@svc/domain/team"
import { UnitOfWork, withEvents } from "@svc/domain/UnitOfWork"
import { Effect, Exit, Option } from "effect"
import { event, membership, team, teamId, userId } from "./Fixtures.ts"
import type { StorageUnderTest } from "./Storage.ts"

/** A team, its first member and the member's event, as one use case writes them. */
const teamWithMember = (n: number) =>
  Effect.gen(function* () {
    yield* TeamRepository.use((teams) => teams.insert(team(n)))
    yield* MembershipRepository.use((m) => m.insert(membership(n, teamId(n), userId(n), "team_admin")))
    yield* EventOutbox.use((outbox) => outbox.append([{ ...event(n, "team.member_added"), team_nanoid: teamId(n) }]))
  })

/** What of `teamWithMember(n)` is stored: the team, the membership, the event. */
const storedOf = (n: number) =>
  Effect.gen(function* () {
    const stored = yield* TeamRepository.use((teams) => teams.findById(teamId(n)))
    const member = yield* MembershipRepository.use((m) => m.find(teamId(n), userId(n)))
    const recorded = yield* EventOutbox.use((outbox) => outbox.findById(event(n).id))
    return [Option.isSome(stored), Option.isSome(member), recorded !== undefined]
  })

const inUnit = <A, E, R>(effect: Effect.Effect<A, E, R>) => UnitOfWork.use((unit) => unit.run(effect))

const lostRace = new StaleState({ resource: "team", id: "te-1", expected: "pending" })

/** Registers the suite for `storage`. */
export const unitOfWorkContract = (storage: StorageUnderTest) =>
  describe(`UnitOfWork (${storage.name})`, () => {
    it.live("commits a unit's changes and its events together, the events numbered", () =>
      Effect.gen(function* () {
        assert.strictEqual(yield* inUnit(Effect.as(teamWithMember(1), "done")), "done")
        assert.deepStrictEqual(yield* storedOf(1), [true, true, true])
        assert.strictEqual((yield* EventOutbox.use((o) => o.findById(event(1).id)))?.sequence, 1)
      }).pipe(Effect.provide(storage.layer()))
    )

    it.live("a unit that fails or dies after its changes leaves neither them nor its events, and answers why", () =>
      Effect.gen(function* () {
        const failed = yield* Effect.exit(inUnit(Effect.andThen(teamWithMember(1), Effect.fail(lostRace))))
        assert.deepStrictEqual(failed, Exit.fail(lostRace))
        assert.deepStrictEqual(yield* storedOf(1), [false, false, false])
        const died = yield* Effect.exit(inUnit(Effect.andThen(teamWithMember(2), Effect.die("broken"))))
        assert.deepStrictEqual(died, Exit.die("broken"))
        assert.deepStrictEqual(yield* storedOf(2), [false, false, false])
        // A lost race inside (the member is there already) undoes what came before it in the unit.
        yield* MembershipRepository.use((m) => m.insert(membership(9, teamId(3), userId(3))))
        const taken = yield* Effect.flip(inUnit(teamWithMember(3)))
        assert.strictEqual(taken._tag, "AlreadyMember")
        const [teamStored, , eventStored] = yield* storedOf(3)
        assert.deepStrictEqual([teamStored, eventStored], [false, false])
      }).pipe(Effect.provide(storage.layer()))
    )

    it.live("a unit inside another joins it: it commits and rolls back with the outer one", () =>
      Effect.gen(function* () {
        const outer = inUnit(Effect.andThen(inUnit(teamWithMember(1)), Effect.fail(lostRace)))
        assert.deepStrictEqual(yield* Effect.exit(outer), Exit.fail(lostRace))
        assert.deepStrictEqual(yield* storedOf(1), [false, false, false])
        yield* inUnit(Effect.andThen(inUnit(teamWithMember(2)), teamWithMember(3)))
        assert.deepStrictEqual([yield* storedOf(2), yield* storedOf(3)], [Array(3).fill(true), Array(3).fill(true)])
      }).pipe(Effect.provide(storage.layer()))
    )

    it.live("other fibers' writes while units run are their own: a unit that fails takes only its own back", () =>
      Effect.gen(function* () {
        const failing = inUnit(
          Effect.gen(function* () {
            yield* teamWithMember(1)
            yield* Effect.yieldNow
            return yield* lostRace
          })
        )
        const others = Effect.all([inUnit(teamWithMember(2)), teamWithMember(3), inUnit(teamWithMember(4))], {
          concurrency: "unbounded"
        })
        const [unit] = yield* Effect.all([Effect.exit(failing), others], { concurrency: "unbounded" })
        assert.deepStrictEqual(unit, Exit.fail(lostRace))
        assert.deepStrictEqual(yield* storedOf(1), [false, false, false])
        for (const n of [2, 3, 4]) assert.deepStrictEqual(yield* storedOf(n), [true, true, true])
      }).pipe(Effect.provide(storage.layer()))
    )

    it.live("withEvents appends what the change answered, and nothing when it answered none", () =>
      Effect.gen(function* () {
        const memberships = yield* MembershipRepository
        yield* memberships.insert(membership(1, teamId(1), userId(1)))
        const removal = (n: number) =>
          withEvents(memberships.remove(teamId(1), userId(1)), (removed) =>
            removed ? [event(n, "team.member_removed")] : []
          )
        assert.isTrue(yield* removal(1))
        assert.isFalse(yield* removal(2))
        const outbox = yield* EventOutbox
        assert.isDefined(yield* outbox.findById(event(1).id))
        assert.isUndefined(yield* outbox.findById(event(2).id))
      }).pipe(Effect.provide(storage.layer()))
    )
  })
