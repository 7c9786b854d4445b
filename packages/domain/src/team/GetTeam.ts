/** One team (SPEC §4.2), with its administrators, and its balance for a caller whose role may read the balance. */
import { Effect } from "effect"
import type { TeamId } from "../Ids.ts"
import { TeamAccess } from "../membership/TeamAccess.ts"
import type { Caller } from "../user/Caller.ts"
import { teamViewOf } from "./TeamView.ts"

/** The team's view (`team.read`). */
export const getTeam = Effect.fn("Teams.get")(function* (caller: Caller, team: TeamId) {
  const { team: found, membership } = yield* TeamAccess.use((access) => access.authorize(caller, team, "team.read"))
  return yield* teamViewOf(found, membership.role)
})
