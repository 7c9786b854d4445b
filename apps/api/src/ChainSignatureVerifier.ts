/**
 * Signature checks that read the chain: externally owned accounts, ERC-1271 contract wallets and ERC-6492
 * counterfactual wallets, against the node at `rpcUrl`.
 *
 * One rule, the forwarder's (docs/decisions/0054): a signer without code on chain signs with a canonical 65-byte
 * ECDSA signature (low `s`, `v` in {0, 1, 27, 28}) that recovers to exactly that signer, checked as without a chain
 * (`SignerKeys`, which keeps the keys of signers who sign again); only a signer with code (ERC-1271) or a counterfactual wallet's wrapped
 * signature (ERC-6492) is asked of the chain, through viem's `verifyHash`. viem's own ECDSA path accepts the
 * malleable high-`s` twin of a valid signature, which the forwarder refuses: it is never reached for an account
 * without code.
 */
import { SignerKeys } from "@svc/adapters/evm"
import { ChainUnreachable } from "@svc/domain/chain"
import { SignatureVerifier, type VerifyHashParameters } from "@svc/domain/signature"
import { Effect, Layer } from "effect"
import { createPublicClient, http, isErc6492Signature } from "viem"

/** A node that cannot be reached is a defect the error envelope answers 503 (the caller cannot act on it but may retry). */
const unavailable = (error: unknown) =>
  Effect.die(new ChainUnreachable({ reason: error instanceof Error ? error.message : String(error) }))

/**
 * The chain-reading verifier. A node that cannot be reached (in 3 s, one retry) is a defect the error envelope answers
 * 503.
 */
export const layer = (rpcUrl: string) =>
  Layer.effect(
    SignatureVerifier,
    Effect.gen(function* () {
      const accounts = SignerKeys.makeSignerKeys()
      const client = createPublicClient({
        transport: http(rpcUrl, { retryCount: 1, timeout: 3_000 }),
        pollingInterval: 10
      })
      /** Asks the chain: ERC-1271 for a signer with code, ERC-6492 for a counterfactual wallet's signature. */
      const onChain = ({ signer, hash, signature }: VerifyHashParameters) =>
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
              : unavailable(error)
          )
        )
      const hasCode = (signer: VerifyHashParameters["signer"]) =>
        Effect.tryPromise({ try: () => client.getCode({ address: signer }), catch: (error) => error }).pipe(
          Effect.map((code) => code !== undefined && code !== "0x"),
          Effect.catch(unavailable)
        )
      return SignatureVerifier.of({
        verifyHash: (parameters) =>
          Effect.gen(function* () {
            if (isErc6492Signature(parameters.signature)) return yield* onChain(parameters)
            if (yield* hasCode(parameters.signer)) return yield* onChain(parameters)
            return yield* accounts.verifyHash(parameters)
          })
      })
    })
  )
