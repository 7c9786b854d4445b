/**
 * Signature checks that read the chain: externally owned accounts, ERC-1271 contract wallets and ERC-6492
 * counterfactual wallets, through viem's `verifyHash` against the node at `rpcUrl`.
 */
import { ChainUnavailable } from "@svc/domain/chain"
import { SignatureVerifier } from "@svc/domain/signature"
import { Effect, Layer } from "effect"
import { createPublicClient, http } from "viem"

/**
 * The chain-reading verifier. A node that cannot be reached (in 3 s, one retry) is a defect the error envelope answers
 * 503 (the caller cannot act on it but may retry).
 */
export const layer = (rpcUrl: string) =>
  Layer.sync(SignatureVerifier, () => {
    const client = createPublicClient({
      transport: http(rpcUrl, { retryCount: 1, timeout: 3_000 }),
      pollingInterval: 10
    })
    return SignatureVerifier.of({
      verifyHash: ({ signer, hash, signature }) =>
        Effect.tryPromise({
          try: () => client.verifyHash({ address: signer, hash, signature }),
          catch: (error) => error
        }).pipe(
          // viem throws for signatures it cannot even parse: that is a mismatch, not an outage.
          Effect.catch((error) =>
            error instanceof Error &&
            /signature|Signature/.test(error.message) &&
            !/fetch|network|HTTP/i.test(error.message)
              ? Effect.succeed(false)
              : Effect.die(
                  new ChainUnavailable({
                    reason: error instanceof Error ? error.message : String(error),
                    nothingSent: true
                  })
                )
          )
        )
    })
  })
