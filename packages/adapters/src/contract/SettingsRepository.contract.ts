/**
 * The contract of `SettingsRepository`: none until put, then the whole record as last put, per team and per member.
 */
import { assert, describe, it } from "@effect/vitest"
import { defaultTeamSettings, SettingsRepository } from "@svc/domain/team"
import { Effect, Option } from "effect"
import { teamId, userId } from "./Fixtures.ts"
import type { StorageUnderTest } from "./Storage.ts"

/** Registers the suite for `storage`. */
export const settingsRepositoryContract = (storage: StorageUnderTest) =>
  describe(`SettingsRepository (${storage.name})`, () => {
    it.live("absent until put, then replaced whole; per team, and per team and member", () =>
      Effect.gen(function* () {
        const settings = yield* SettingsRepository
        const t = teamId(1)
        assert.isTrue(Option.isNone(yield* settings.getTeam(t)))
        yield* settings.putTeam(t, defaultTeamSettings)
        yield* settings.putTeam(t, { ...defaultTeamSettings, invoice_prefix: "INV" })
        assert.deepStrictEqual(Option.getOrThrow(yield* settings.getTeam(t)), {
          ...defaultTeamSettings,
          invoice_prefix: "INV"
        })
        assert.isTrue(Option.isNone(yield* settings.getTeam(teamId(2))))
        const member = { hourly_rate_usd_cents: 5000, payment_notifications: false, default_invoice_description: "x" }
        yield* settings.putMember(t, userId(1), { ...member, hourly_rate_usd_cents: 1 })
        yield* settings.putMember(t, userId(1), member)
        assert.deepStrictEqual(Option.getOrThrow(yield* settings.getMember(t, userId(1))), member)
        assert.isTrue(Option.isNone(yield* settings.getMember(t, userId(2))))
        assert.isTrue(Option.isNone(yield* settings.getMember(teamId(2), userId(1))))
      }).pipe(Effect.provide(storage.layer()))
    )
  })
