/**
 * Team balances read from the chain: the settlement token (USDC, 6 decimals) held by the team's svc account, in cents.
 */
import { TeamBalances } from "@svc/adapters/http/server"
import { ChainGateway } from "@svc/domain/chain"
import { Effect, Layer } from "effect"
import type { Address } from "viem"

/** Token units per cent: USDC has 6 decimals, a cent is 10^4 units (DESIGN §5). */
export const unitsPerCent = 10n ** 4n

/** The chain-backed `TeamBalances`; a team without an account has nothing. An unreachable node is a defect. */
export const layer = Layer.effect(
  TeamBalances,
  Effect.gen(function* () {
    const chain = yield* ChainGateway
    return TeamBalances.of({
      balanceCents: (team) =>
        team.svc_account === ""
          ? Effect.succeed("0")
          : chain.balanceOf(team.svc_account as Address).pipe(
              Effect.map((units) => (units / unitsPerCent).toString()),
              Effect.orDie
            )
    })
  })
)
