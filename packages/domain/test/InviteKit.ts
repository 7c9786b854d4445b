/** A team with a pending member invite, made by its admin, for the invite use-case tests. */
import { Effect, Schema } from "effect"
import type { TeamId } from "../src/Ids.ts"
import { createInvites } from "../src/invite/CreateInvites.ts"
import { CreateInvitesRequest } from "../src/invite/InviteRequests.ts"
import { mailedTokens, seedTeam } from "./UseCaseKit.ts"

/** A creation body for `emails`, as a client sends it. */
export const invitesBody = (team: TeamId, emails: ReadonlyArray<string>) =>
  Schema.decodeUnknownSync(CreateInvitesRequest)({
    nanoid: team,
    role: "team_employee",
    invites: emails.map((email) => ({ email }))
  })

/** The seeded team (`seedTeam`), and an invite of `new.hire@team.example` with its mailed token. */
export const seedInvite = Effect.gen(function* () {
  const seeded = yield* seedTeam
  const { nanoids } = yield* createInvites(seeded.admin, invitesBody(seeded.team, ["new.hire@team.example"]))
  const token = (yield* mailedTokens).get("new.hire@team.example") ?? ""
  return { ...seeded, invite: nanoids[0] as (typeof nanoids)[number], token }
})
