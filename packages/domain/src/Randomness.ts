/**
 * Randomness as a service, so salts and nonces are unpredictable in production and repeatable in tests.
 */
import { Context, Effect, Layer } from "effect"

/** Random bytes. Implementations used outside tests must be cryptographically secure. */
export class Randomness extends Context.Service<
  Randomness,
  { readonly bytes: (length: number) => Effect.Effect<Uint8Array> }
>()("@svc/domain/Randomness") {
  /** The platform's CSPRNG (Web Crypto, available as a global in Node and browsers). */
  static readonly layer = Layer.succeed(Randomness, {
    bytes: (length) => Effect.sync(() => globalThis.crypto.getRandomValues(new Uint8Array(length)))
  })

  /** A deterministic stream (xorshift32 from a fixed seed) for tests: the same calls yield the same bytes. */
  static readonly layerTest = (seed = 0x9e3779b9) =>
    Layer.sync(Randomness, () => {
      let state = seed >>> 0 || 1
      const next = () => {
        state ^= state << 13
        state >>>= 0
        state ^= state >>> 17
        state ^= state << 5
        state >>>= 0
        return state & 0xff
      }
      return Randomness.of({
        bytes: (length) => Effect.sync(() => Uint8Array.from({ length }, next))
      })
    })
}

/** `length` random bytes as lower-case hex, without `0x`. */
export const randomHex = (length: number): Effect.Effect<string, never, Randomness> =>
  Randomness.use((randomness) =>
    Effect.map(randomness.bytes(length), (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join(""))
  )
