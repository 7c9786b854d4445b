/**
 * A claim held while its execution runs (decisions 0090, 0093): the execution runs on a fiber of the process's
 * `Executions`, under a lease its holder renews (`keepRenewed`), and stops before its next write once the store says
 * another holder has the request.
 */
import { Effect, type Fiber } from "effect"
import type { ClaimedTypedData } from "../eip712/IssuedRequestStore.ts"
import { IssuedRequestStore } from "../eip712/IssuedRequestStore.ts"
import { keepRenewed, type LeaseLost } from "../Lease.ts"
import { Executions } from "./Executions.ts"

/** Runs `work` for the holder of `claimed` on a fiber of `Executions`, renewing the claim's lease `leaseMillis` long. */
export const hold = <A, E, R>(
  claimed: ClaimedTypedData,
  leaseMillis: number,
  work: Effect.Effect<A, E, R>
): Effect.Effect<Fiber.Fiber<A, E | LeaseLost>, never, R | Executions | IssuedRequestStore> =>
  Effect.gen(function* () {
    const store = yield* IssuedRequestStore
    const renewed = keepRenewed({
      lease: `request ${claimed.salt}`,
      held: claimed.claim,
      leaseMillis,
      renew: (until) => store.renew(claimed.salt, claimed.claim.token, until)
    })(work)
    return yield* Executions.use((executions) => executions.fork(renewed))
  })
