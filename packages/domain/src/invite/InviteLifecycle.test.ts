/**
 * The invite use cases through the `Invites` service, over time: lifetimes and expiry, and the events each step
 * writes to the outbox with its change.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import { TestClock } from "effect/testing"
import { mailedTokens, outboxEvents, seedTeam, teamUseCases } from "../../test/UseCaseKit.ts"
import type { TeamId } from "../Ids.ts"
import { UserRepository } from "../user/UserRepository.ts"
import { CreateInvitesRequest } from "./InviteRequests.ts"
import { Invites } from "./Invites.ts"

const day = 24 * 60 * 60 * 1000

const invitesLayer = Invites.layer.pipe(Layer.provideMerge(teamUseCases))

/** A contractor invite of each of `emails` to `team`, as a client sends it. */
const invitesOf = (team: TeamId, emails: ReadonlyArray<string>) =>
  Schema.decodeUnknownSync(CreateInvitesRequest)({
    nanoid: team,
    invites: emails.map((email) => ({ email })),
    role: "contractor"
  })

describe("invite use cases", () => {
  it.effect("invites expire after their lifetime: a late token fails with 410, the sweep writes invite.expired", () =>
    Effect.gen(function* () {
      const invites = yield* Invites
      const { team, admin, outsider: invitee } = yield* seedTeam
      const { nanoids } = yield* invites.create(admin, invitesOf(team, ["late@example.com", "early@example.com"]))
      const tokens = yield* mailedTokens
      assert.strictEqual(yield* invites.expireDue(), 0)
      yield* TestClock.adjust(7 * day - 1)
      assert.strictEqual(yield* invites.expireDue(), 0)
      yield* TestClock.adjust(1)
      // Past its lifetime, before the sweep: refused, and nothing changes.
      const late = yield* Effect.flip(
        invites.accept(invitee, { invite_nanoid: nanoids[0]!, token: tokens.get("late@example.com")! })
      )
      assert.deepStrictEqual([late._tag, late.errorCode], ["InviteExpired", "INVITE_EXPIRED"])
      assert.deepStrictEqual(yield* outboxEvents, [])
      assert.strictEqual(yield* invites.expireDue(), 2)
      assert.strictEqual(yield* invites.expireDue(), 0)
      const expired = yield* outboxEvents
      assert.deepStrictEqual(
        expired.map((e) => e.event_type),
        ["invite.expired", "invite.expired"]
      )
      assert.strictEqual(expired[0]?.team_nanoid, team)
      assert.strictEqual((expired[0]!.data as { status: string }).status, "expired")
      assert.strictEqual((expired[0]!.data as { role: string }).role, "team_contractor")
      const revoke = yield* Effect.flip(invites.revoke(admin, nanoids[1]!))
      assert.strictEqual(revoke.errorCode, "INVITE_EXPIRED")
    }).pipe(Effect.provide(invitesLayer))
  )

  it.effect("accepting writes invite.accepted and team.member_added; rejecting writes invite.rejected", () =>
    Effect.gen(function* () {
      const invites = yield* Invites
      const { team, admin, outsider: invitee } = yield* seedTeam
      const { nanoids } = yield* invites.create(admin, invitesOf(team, ["ada@example.com", "bob@example.com"]))
      const tokens = yield* mailedTokens
      const accepted = yield* invites.accept(invitee, {
        invite_nanoid: nanoids[0]!,
        token: tokens.get("ada@example.com")!
      })
      assert.deepStrictEqual([accepted.state, accepted.role], ["accepted", "contractor"])
      // Already a member now: a second invite to the same team is refused and stays pending.
      const twice = yield* Effect.flip(
        invites.accept(invitee, { invite_nanoid: nanoids[1]!, token: tokens.get("bob@example.com")! })
      )
      assert.strictEqual(twice.errorCode, "ROLE_CONFLICT")
      const rejected = yield* invites.reject(invitee, {
        invite_nanoid: nanoids[1]!,
        token: tokens.get("bob@example.com")!
      })
      assert.strictEqual(rejected.state, "rejected")
      const written = yield* outboxEvents
      assert.deepStrictEqual(
        written.map((e) => e.event_type),
        ["invite.accepted", "team.member_added", "invite.rejected"]
      )
      assert.strictEqual((written[0]!.data as { user_nanoid: string }).user_nanoid, invitee.nanoid)
      assert.deepStrictEqual(
        [(written[1]!.data as { role: string }).role, (written[1]!.data as { email: string }).email],
        ["team_contractor", "ada@example.com"]
      )
      const user = yield* UserRepository.use((u) => u.findById(invitee.nanoid))
      assert.strictEqual(user._tag === "Some" ? user.value.email : "", "ada@example.com")
      // Nothing is listed once answered.
      assert.deepStrictEqual(yield* invites.list(admin, team), [])
    }).pipe(Effect.provide(invitesLayer))
  )
})
