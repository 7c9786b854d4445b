import { assert, describe, it } from "@effect/vitest"
import { Effect, Option, Schema } from "effect"
import { seedTeam, teamUseCases } from "../../test/UseCaseKit.ts"
import { UpdateTeamBody } from "./Team.ts"
import { TeamRepository } from "./TeamRepository.ts"
import { updateTeam } from "./UpdateTeam.ts"

const changes = Schema.decodeUnknownSync(UpdateTeamBody)

describe("updateTeam", () => {
  it.effect("renames the team for its admin; an employee changes nothing", () =>
    Effect.gen(function* () {
      const { team, admin, employee } = yield* seedTeam
      assert.strictEqual((yield* updateTeam(admin, team, changes({ name: "Renamed" }))).name, "Renamed")
      const refused = yield* Effect.flip(updateTeam(employee, team, changes({ name: "Mine" })))
      assert.strictEqual(refused._tag, "InsufficientPermissions")
      const stored = yield* TeamRepository.use((t) => t.findById(team))
      assert.strictEqual(Option.map(stored, (t) => t.name).pipe(Option.getOrUndefined), "Renamed")
    }).pipe(Effect.provide(teamUseCases))
  )
})
