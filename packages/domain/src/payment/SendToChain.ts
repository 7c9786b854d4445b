/**
 * The one switch from an issued request's kind to the forwarder's entry point (the chain's relayer journals the
 * transaction before it is sent, decision 0052): the holder's first send (`ExecuteOnce.ts`) and recovery's sending
 * again (`Recovery.ts`) both go through it.
 */
import { Effect } from "effect"
import type { Hex } from "viem"
import type { RequestError } from "../chain/ChainError.ts"
import { ChainGateway, type SettlementProgress } from "../chain/ChainGateway.ts"
import { paymentRequestOf, paymentsRequestOf, rolesRequestOf } from "../chain/ForwardRequest.ts"
import type { Settlement } from "../chain/Settlement.ts"
import type { IssuedTypedData } from "../eip712/IssuedRequestStore.ts"

/**
 * Sends an issued request with its signature to the forwarder entry point of its kind; answers what it settled (a
 * grant settles no payment).
 */
export const sendToChain = (
  issued: IssuedTypedData,
  signature: Hex,
  progress?: SettlementProgress
): Effect.Effect<Settlement, RequestError, ChainGateway> =>
  ChainGateway.use((chain): Effect.Effect<Settlement, RequestError> => {
    switch (issued.kind) {
      case "batch":
        return chain.executePayments({ request: paymentsRequestOf(issued.bundle.typed_data), signature }, progress)
      case "instant":
        return chain.executePayment({ request: paymentRequestOf(issued.bundle.typed_data), signature }, progress)
      case "roles":
        return Effect.map(
          chain.executeRoles({ request: rolesRequestOf(issued.bundle.typed_data), signature }, progress),
          (settled): Settlement => ({ ...settled, payments: [] })
        )
    }
  })
