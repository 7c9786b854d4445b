/**
 * Deleting a team (SPEC §4.2): marked deleted, its id stays taken. Refused while it holds money or intents wait to be
 * paid from it, which would have no team to pay them out from.
 */
import { DateTime, Effect } from "effect"
import { ChainGateway } from "../chain/ChainGateway.ts"
import type { TeamId } from "../Ids.ts"
import { TeamAccess } from "../membership/TeamAccess.ts"
import { PaymentLedger } from "../payment/PaymentLedger.ts"
import type { Caller } from "../user/Caller.ts"
import { teamAccountOf } from "./Team.ts"
import { TeamNotEmpty } from "./TeamNotFound.ts"
import { TeamRepository } from "./TeamRepository.ts"

/** Marks the team deleted (`team.delete`), once its account is empty and no intent waits. */
export const deleteTeam = Effect.fn("Teams.delete")(function* (caller: Caller, team: TeamId) {
  const { team: found } = yield* TeamAccess.use((access) => access.authorize(caller, team, "team.delete"))
  const chain = yield* ChainGateway.present
  const account = teamAccountOf(found)
  const held =
    chain._tag === "Some" && account !== undefined ? yield* chain.value.balanceOf(account).pipe(Effect.orDie) : 0n
  if (held > 0n) return yield* new TeamNotEmpty({ team, message: "The team still holds money: pay it out first" })
  const pending = yield* PaymentLedger.use((ledger) => ledger.list({ states: ["intent", "scheduled"], payer: team }))
  if (pending.length > 0) {
    return yield* new TeamNotEmpty({
      team,
      message: `The team has ${pending.length} intent(s) waiting to be paid: let them run or expire first`
    })
  }
  const at = DateTime.formatIso(yield* DateTime.now)
  yield* TeamRepository.use((teams) => teams.update(team, { status: "deleted", updated_at: at }))
  return { team_nanoid: team, deleted: true as const }
})
