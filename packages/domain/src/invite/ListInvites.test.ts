import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { seedInvite } from "../../test/InviteKit.ts"
import { teamUseCases } from "../../test/UseCaseKit.ts"
import { listInvites } from "./ListInvites.ts"

describe("listInvites", () => {
  it.effect("lists a team's pending invites, and a company's, to its admin; refuses an outsider", () =>
    Effect.gen(function* () {
      const { company, team, admin, outsider, invite } = yield* seedInvite
      const ofTeam = yield* listInvites(admin, team)
      assert.deepStrictEqual(
        ofTeam.map((i) => [i.nanoid, i.email, i.company.name]),
        [[invite, "new.hire@team.example", "Co"]]
      )
      assert.deepStrictEqual(
        (yield* listInvites(admin, company)).map((i) => i.nanoid),
        [invite]
      )
      assert.strictEqual((yield* Effect.flip(listInvites(outsider, team)))._tag, "InsufficientPermissions")
      assert.strictEqual((yield* Effect.flip(listInvites(outsider, company)))._tag, "InsufficientPermissions")
    }).pipe(Effect.provide(teamUseCases))
  )
})
