import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { TestClock } from "effect/testing"
import { seedInvite } from "../../test/InviteKit.ts"
import { outboxEvents, teamUseCases } from "../../test/UseCaseKit.ts"
import { expireInvites } from "./ExpireInvites.ts"
import { InviteRepository } from "./InviteRepository.ts"

describe("expireInvites", () => {
  it.effect("expires pending invites past their lifetime, each once, with its invite.expired", () =>
    Effect.gen(function* () {
      const { invite } = yield* seedInvite
      assert.strictEqual(yield* expireInvites(100), 0)
      yield* TestClock.adjust("8 days")
      assert.strictEqual(yield* expireInvites(100), 1)
      assert.strictEqual((yield* InviteRepository.use((i) => i.findById(invite))).state, "expired")
      assert.include(
        (yield* outboxEvents).map((e) => e.event_type),
        "invite.expired"
      )
      assert.strictEqual(yield* expireInvites(100), 0)
    }).pipe(Effect.provide(teamUseCases))
  )
})
