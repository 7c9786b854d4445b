/**
 * The balance a team view shows (SPEC §2.5 `balance`): what the team's svc account holds of the settlement token.
 */
import { Context, Effect, Layer } from "effect"
import { ChainGateway } from "../chain/ChainGateway.ts"
import { unitsPerCent } from "../payment/Payment.ts"
import { type Team, teamAccountOf } from "./Team.ts"

/** A team's balance in USD cents, as a decimal string. */
export class TeamBalances extends Context.Service<
  TeamBalances,
  { readonly balanceCents: (team: Team) => Effect.Effect<string> }
>()("@svc/domain/team/TeamBalances") {
  /** Every team at zero: for deployments without a chain, and tests that do not look at balances. */
  static readonly layerZero = Layer.succeed(TeamBalances, TeamBalances.of({ balanceCents: () => Effect.succeed("0") }))

  /** Read from the chain (USDC held by the team's account, rounded down to the cent); no account holds nothing. */
  static readonly layerChain = Layer.effect(
    TeamBalances,
    Effect.gen(function* () {
      const chain = yield* ChainGateway
      return TeamBalances.of({
        balanceCents: (team) => {
          const account = teamAccountOf(team)
          return account === undefined
            ? Effect.succeed("0")
            : chain.balanceOf(account).pipe(
                Effect.map((units) => (units / unitsPerCent()).toString()),
                Effect.orDie
              )
        }
      })
    })
  )
}
