/**
 * The SQLite unit of work's own rule: it runs synchronously, so a step that would wait is a defect that writes
 * nothing, then or later (the shared behaviour is the contract suite's, `UnitOfWork.contract.ts`).
 */
import { assert, describe, it } from "@effect/vitest"
import { EventOutbox } from "@svc/domain/event"
import { MembershipRepository } from "@svc/domain/membership"
import { UnitOfWork } from "@svc/domain/UnitOfWork"
import { Cause, Effect, Exit, Option } from "effect"
import { TestClock } from "effect/testing"
import { event, membership, teamId, userId } from "../contract/Fixtures.ts"
import * as SqliteStorage from "./SqliteStorage.ts"

describe("SQLite unit of work", () => {
  it.effect("a step that waits inside a unit is a defect: the unit writes nothing, and nothing of it runs later", () =>
    Effect.gen(function* () {
      const memberships = yield* MembershipRepository
      const outbox = yield* EventOutbox
      const unit = Effect.gen(function* () {
        yield* memberships.insert(membership(1, teamId(1), userId(1)))
        // not a wait: the step under test, which waits inside the unit
        yield* Effect.sleep("5 millis")
        yield* outbox.append([event(1, "team.member_added")])
      })
      const exit = yield* Effect.exit(UnitOfWork.use((u) => u.run(unit)))
      assert.isTrue(Exit.isFailure(exit) && Cause.hasDies(exit.cause))
      // Past the step's wait (the test's clock): had the unit gone on, its rest would have run by now.
      yield* TestClock.adjust("1 second")
      assert.isTrue(Option.isNone(yield* memberships.find(teamId(1), userId(1))))
      assert.isUndefined(yield* outbox.findById(event(1).id))
      // The connection is left as it was: the next unit commits.
      yield* UnitOfWork.use((u) => u.run(memberships.insert(membership(2, teamId(1), userId(2)))))
      assert.isTrue(Option.isSome(yield* memberships.find(teamId(1), userId(2))))
    }).pipe(Effect.provide(SqliteStorage.layer({ filename: ":memory:" })))
  )
})
