/**
 * The balance a team view shows (SPEC §2.5 `balance`): read from the chain by the composition root.
 */
import type { Team } from "@svc/domain/team"
import { Context, Effect, Layer } from "effect"

/** A team's balance in USD cents, as a decimal string. */
export class TeamBalances extends Context.Service<
  TeamBalances,
  { readonly balanceCents: (team: Team) => Effect.Effect<string> }
>()("@svc/adapters/http/server/TeamBalances") {
  /** Every team at zero: for deployments without a chain, and tests that do not look at balances. */
  static readonly layerZero = Layer.succeed(TeamBalances, TeamBalances.of({ balanceCents: () => Effect.succeed("0") }))
}
