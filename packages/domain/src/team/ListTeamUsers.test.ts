import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { seedTeam, teamUseCases } from "../../test/UseCaseKit.ts"
import { listTeamUsers } from "./ListTeamUsers.ts"

describe("listTeamUsers", () => {
  it.effect("lists the team's users with their roles, a page at a time when asked; refuses an outsider", () =>
    Effect.gen(function* () {
      const { team, admin, employee, outsider } = yield* seedTeam
      const all = yield* listTeamUsers(admin, team, {})
      assert.sameMembers(
        all.users.map((u) => `${u.nanoid} ${u.role} ${u.svc_account}`),
        [`${admin.nanoid} team_admin `, `${employee.nanoid} team_employee `]
      )
      const first = yield* listTeamUsers(admin, team, { page: 1, count: 1 })
      assert.strictEqual(first.users.length, 1)
      assert.isTrue(first.pagination.has_more)
      assert.strictEqual((yield* Effect.flip(listTeamUsers(outsider, team, {})))._tag, "InsufficientPermissions")
    }).pipe(Effect.provide(teamUseCases))
  )
})
