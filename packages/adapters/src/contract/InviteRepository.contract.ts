/**
 * The contract of `InviteRepository`: a batch of invites is created all-or-nothing; each transition is one conditional
 * step. In a unit of work, what the use case writes with them through the other ports (mails, an acceptance's
 * membership and user e-mail, events) commits with them, or nothing at all.
 */
import { assert, describe, it } from "@effect/vitest"
import type { Email } from "@svc/domain/Email"
import type { WalletAddress } from "@svc/domain/Evm"
import { EventOutbox } from "@svc/domain/event"
import { type InviteChange, InviteRepository } from "@svc/domain/invite"
import { MailOutbox } from "@svc/domain/mail"
import { MembershipRepository } from "@svc/domain/membership"
import { UnitOfWork, withEvents } from "@svc/domain/UnitOfWork"
import { newUser, UserRepository } from "@svc/domain/user"
import { Effect, Exit } from "effect"
import { event, invite, inviteId, mail, membership, teamId, userId, wallet } from "./Fixtures.ts"
import type { StorageUnderTest } from "./Storage.ts"

const inUnit = <A, E, R>(effect: Effect.Effect<A, E, R>) => UnitOfWork.use((unit) => unit.run(effect))

/** Registers the suite for `storage`. */
export const inviteRepositoryContract = (storage: StorageUnderTest) =>
  describe(`InviteRepository (${storage.name})`, () => {
    it.live("an admin invite whose wallet's user has no e-mail is kept with an empty one, and read back", () =>
      Effect.gen(function* () {
        const invites = yield* InviteRepository
        const admin = invite(5, {
          kind: "admin",
          role: "team_admin",
          email: "" as Email,
          account: `0x${"5".repeat(40)}` as WalletAddress
        })
        yield* invites.create([admin])
        assert.deepStrictEqual(yield* invites.findById(inviteId(5)), admin)
        assert.deepStrictEqual(yield* invites.listByTeams([teamId(1)], ["pending"]), [admin])
      }).pipe(Effect.provide(storage.layer()))
    )

    it.live("creates invites with their mails in a unit, finds and lists them newest first", () =>
      Effect.gen(function* () {
        const invites = yield* InviteRepository
        const mails = yield* MailOutbox
        const created = (list: Parameters<typeof invites.create>[0], queued: Parameters<typeof mails.enqueue>[0]) =>
          inUnit(Effect.andThen(invites.create(list), mails.enqueue(queued)))
        yield* created([invite(1), invite(2), invite(3, { team_nanoid: teamId(2) })], [mail(1), mail(2)])
        assert.deepStrictEqual(yield* invites.findById(inviteId(2)), invite(2))
        const missing = yield* Effect.flip(invites.findById(inviteId(9)))
        assert.strictEqual(missing._tag, "InviteNotFound")
        assert.deepStrictEqual(
          (yield* invites.listByTeams([teamId(1)], [])).map((i) => i.nanoid),
          [inviteId(2), inviteId(1)]
        )
        assert.deepStrictEqual(
          (yield* invites.listByTeams([teamId(1), teamId(2)], ["pending"])).map((i) => i.nanoid),
          [inviteId(3), inviteId(2), inviteId(1)]
        )
        assert.deepStrictEqual(yield* invites.listByTeams([teamId(1)], ["accepted"]), [])
        assert.deepStrictEqual(yield* invites.listByTeams([], []), [])
        assert.strictEqual(yield* mails.stateOf(mail(1).id), "queued")
        // All or nothing: a batch with a taken id stores none of its invites, alone or in a unit with its mails.
        assert.isTrue(Exit.isFailure(yield* Effect.exit(invites.create([invite(4), invite(1)]))))
        assert.strictEqual((yield* Effect.flip(invites.findById(inviteId(4))))._tag, "InviteNotFound")
        const exit = yield* Effect.exit(created([invite(5), invite(1)], [mail(5)]))
        assert.isTrue(Exit.isFailure(exit))
        assert.strictEqual((yield* Effect.flip(invites.findById(inviteId(5))))._tag, "InviteNotFound")
        assert.isUndefined(yield* mails.stateOf(mail(5).id))
      }).pipe(Effect.provide(storage.layer()))
    )

    it.live("accepting writes the state, membership, user e-mail and events in one unit, once", () =>
      Effect.gen(function* () {
        const invites = yield* InviteRepository
        const outbox = yield* EventOutbox
        const users = yield* UserRepository
        const memberships = yield* MembershipRepository
        yield* users.insert(newUser({ nanoid: userId(7), wallet: wallet(7), created_at: "2026-01-01T00:00:00.000Z" }))
        yield* invites.create([invite(1)])
        const joined = { ...membership(1, teamId(1), userId(7)), email: "invitee1@example.com" }
        const change = {
          tokenHash: invite(1).token_hash,
          patch: { user_nanoid: userId(7), updated_at: "2026-01-02T00:00:00.000Z" }
        }
        const events = [event(1, "invite.accepted"), event(2, "team.member_added")]
        // As the use case writes it: the transition, then the membership and the e-mail, and the events.
        const accept = (tokenHash: string, reported: typeof events) =>
          withEvents(
            Effect.tap(invites.transition(inviteId(1), "pending", "accepted", { ...change, tokenHash }), () =>
              Effect.andThen(memberships.insert(joined), users.setEmail(userId(7), "invitee1@example.com"))
            ),
            () => reported
          )
        // A stale token hash changes nothing.
        const wrong = yield* Effect.flip(accept("00", events))
        assert.strictEqual(wrong._tag, "StaleState")
        assert.isUndefined(yield* outbox.findById(event(1).id))
        assert.isTrue((yield* memberships.find(teamId(1), userId(7)))._tag === "None")
        const accepted = yield* accept(change.tokenHash, events)
        assert.strictEqual(accepted.state, "accepted")
        assert.strictEqual(accepted.user_nanoid, userId(7))
        assert.strictEqual((yield* invites.findById(inviteId(1))).state, "accepted")
        const member = yield* memberships.find(teamId(1), userId(7))
        assert.strictEqual(member._tag === "Some" ? member.value.role : undefined, "team_employee")
        const user = yield* users.findById(userId(7))
        assert.strictEqual(user._tag === "Some" ? user.value.email : undefined, "invitee1@example.com")
        assert.isDefined(yield* outbox.findById(event(1).id))
        assert.isDefined(yield* outbox.findById(event(2).id))
        // The token works once: the second acceptance is stale and writes nothing.
        const again = yield* Effect.flip(accept(change.tokenHash, [event(3)]))
        assert.strictEqual(again._tag, "StaleState")
        assert.isUndefined(yield* outbox.findById(event(3).id))
        const unknown = yield* Effect.flip(invites.transition(inviteId(9), "pending", "revoked", {}))
        assert.strictEqual(unknown._tag, "InviteNotFound")
      }).pipe(Effect.provide(storage.layer()))
    )

    it.live("an existing membership refuses the acceptance and nothing of it is written", () =>
      Effect.gen(function* () {
        const invites = yield* InviteRepository
        const outbox = yield* EventOutbox
        yield* MembershipRepository.use((m) => m.insert(membership(1, teamId(1), userId(7))))
        const users = yield* UserRepository
        yield* users.insert(newUser({ nanoid: userId(7), wallet: wallet(7), created_at: "2026-01-01T00:00:00.000Z" }))
        yield* invites.create([invite(1)])
        const refused = yield* Effect.flip(
          withEvents(
            Effect.tap(invites.transition(inviteId(1), "pending", "accepted", {}), () =>
              Effect.andThen(
                users.setEmail(userId(7), "invitee1@example.com"),
                MembershipRepository.use((m) => m.insert(membership(2, teamId(1), userId(7))))
              )
            ),
            () => [event(1, "invite.accepted")]
          )
        )
        assert.strictEqual(refused._tag, "AlreadyMember")
        assert.strictEqual((yield* invites.findById(inviteId(1))).state, "pending")
        assert.isUndefined(yield* outbox.findById(event(1).id))
        const user = yield* users.findById(userId(7))
        assert.strictEqual(user._tag === "Some" ? user.value.email : undefined, "")
      }).pipe(Effect.provide(storage.layer()))
    )

    it.live("a resend in a unit replaces the token and queues its mail; expired invites are listed oldest first", () =>
      Effect.gen(function* () {
        const invites = yield* InviteRepository
        const mails = yield* MailOutbox
        yield* invites.create([invite(1), invite(2), invite(3, { state: "accepted" })])
        const resend = (patch: NonNullable<InviteChange["patch"]>, queued: ReturnType<typeof mail>) =>
          inUnit(
            Effect.tap(
              invites.transition(inviteId(1), "pending", "pending", { tokenHash: invite(1).token_hash, patch }),
              () => mails.enqueue([queued])
            )
          )
        const renewed = yield* resend({ token_hash: "cd".repeat(32), expires_at: "2026-02-01T00:00:00.000Z" }, mail(1))
        assert.strictEqual(renewed.token_hash, "cd".repeat(32))
        assert.strictEqual(yield* mails.stateOf(mail(1).id), "queued")
        const stale = yield* Effect.flip(resend({}, mail(2)))
        assert.strictEqual(stale._tag, "StaleState")
        assert.isUndefined(yield* mails.stateOf(mail(2).id))
        assert.deepStrictEqual(
          (yield* invites.listExpired("2026-01-31T00:00:00.000Z", 10)).map((i) => i.nanoid),
          [inviteId(2)]
        )
        assert.deepStrictEqual(
          (yield* invites.listExpired("2026-03-01T00:00:00.000Z", 10)).map((i) => i.nanoid),
          [inviteId(2), inviteId(1)]
        )
        assert.strictEqual((yield* invites.listExpired("2026-03-01T00:00:00.000Z", 1)).length, 1)
      }).pipe(Effect.provide(storage.layer()))
    )
  })
