import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { invitesBody } from "../../test/InviteKit.ts"
import { mailedTokens, seedTeam, teamUseCases } from "../../test/UseCaseKit.ts"
import { createInvites } from "./CreateInvites.ts"
import { InviteRepository } from "./InviteRepository.ts"

describe("createInvites", () => {
  it.effect(
    "one pending invite and one mail with a token per e-mail, in request order; an employee cannot invite",
    () =>
      Effect.gen(function* () {
        const { team, admin, employee } = yield* seedTeam
        const emails = ["a@team.example", "b@team.example"]
        const { nanoids } = yield* createInvites(admin, invitesBody(team, emails))
        const stored = yield* Effect.forEach(nanoids, (id) => InviteRepository.use((i) => i.findById(id)))
        assert.deepStrictEqual(
          stored.map((i) => [i.email, i.state, i.kind]),
          emails.map((email) => [email, "pending", "member"])
        )
        const tokens = yield* mailedTokens
        for (const email of emails) assert.match(tokens.get(email) ?? "", /^[0-9a-f]{64}$/)
        const refused = yield* Effect.flip(createInvites(employee, invitesBody(team, ["c@team.example"])))
        assert.strictEqual(refused._tag, "InsufficientPermissions")
      }).pipe(Effect.provide(teamUseCases))
  )
})
