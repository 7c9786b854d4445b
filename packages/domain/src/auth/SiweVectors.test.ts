/**
 * The domain's SIWE against EIP-4361's reference test vectors (spruceid/siwe, `test/*.json` at 940a66a, copied into
 * `test/siwe-vectors/`): every message parses or is refused as the reference says, every object is written as the
 * reference writes it or refused, and every signed message verifies or is refused at the vector's time, domain,
 * nonce and scheme. Where the domain answers differently on purpose, `differs` says so and why; the ERC-1271 vectors
 * need mainnet contracts (no chain here) and are counted apart.
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { TestClock } from "effect/testing"
import { SignatureVerifier } from "../signature/SignatureVerifier.ts"
import { formatSiweMessage, parseSiweMessage, type SiweFields, validateSiweMessage, verifySiweMessage } from "./Siwe.ts"

const vectors = <A>(name: string): Record<string, A> =>
  JSON.parse(readFileSync(join(import.meta.dirname, "../../test/siwe-vectors", `${name}.json`), "utf8"))

type Fields = Record<string, unknown>
type Signed = Fields & { signature: `0x${string}`; domainBinding?: string; matchNonce?: string; time?: string }

/** A vector's fields as `SiweFields` (the reference writes absent optional fields as `null`). */
const fieldsOf = (fields: Fields): SiweFields =>
  Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== null)) as unknown as SiweFields

/**
 * Vectors the domain answers differently from the reference, on purpose: the reference's verify checks the time
 * against Expiration Time and Not Before only; ours also refuses a message issued after now (Issued At in the future),
 * so the "expired message" vector, verified at a time two years before it was issued, is refused.
 */
const differs: Record<string, string> = {
  "verification_positive/expired message": "SiweIssuedInFuture"
}

describe("SIWE: EIP-4361's reference vectors", () => {
  it.effect("parsing_positive: each message parses to its fields, and its fields are written as that message", () =>
    Effect.gen(function* () {
      const cases = Object.entries(vectors<{ message: string; fields: Fields }>("parsing_positive"))
      assert.strictEqual(cases.length, 19)
      for (const [name, vector] of cases) {
        const parsed = yield* parseSiweMessage(vector.message)
        for (const [field, value] of Object.entries(vector.fields)) {
          assert.deepStrictEqual(parsed[field as keyof SiweFields], value ?? undefined, `${name}: ${field}`)
        }
        assert.strictEqual(yield* formatSiweMessage(fieldsOf(vector.fields)), vector.message, name)
      }
    })
  )

  it.effect("parsing_negative: each message is refused as malformed", () =>
    Effect.gen(function* () {
      const cases = Object.entries(vectors<string>("parsing_negative"))
      assert.strictEqual(cases.length, 29)
      for (const [name, message] of cases) {
        const refused = yield* Effect.flip(parseSiweMessage(message))
        assert.strictEqual(refused._tag, "SiweMalformedMessage", name)
      }
    })
  )

  it.effect("parsing_negative_objects: no message is written for them (a missing domain or nonce included)", () =>
    Effect.gen(function* () {
      const cases = Object.entries(vectors<Fields>("parsing_negative_objects"))
      assert.strictEqual(cases.length, 18)
      for (const [name, fields] of cases) {
        const refused = yield* Effect.flip(formatSiweMessage(fieldsOf(fields)))
        assert.strictEqual(refused._tag, "SiweMalformedMessage", name)
      }
      const missing = vectors<Fields>("parsing_negative_objects")
      for (const field of ["domain", "nonce"]) {
        const refused = yield* Effect.flip(formatSiweMessage(fieldsOf(missing[`missing ${field}`]!)))
        assert.strictEqual(refused.reason, `${field} is missing`)
      }
    })
  )

  /** Verifies a signed vector at its time, against its domain binding and nonce (the message's own otherwise). */
  const verifyVector = (vector: Signed) =>
    Effect.gen(function* () {
      const fields = fieldsOf(vector)
      const message = yield* formatSiweMessage(fields)
      yield* TestClock.setTime(Date.parse(vector.time ?? fields.issuedAt))
      return yield* verifySiweMessage({
        message,
        signature: vector.signature,
        expected: {
          domain: vector.domainBinding ?? fields.domain,
          uri: fields.uri,
          chainId: fields.chainId,
          nonce: vector.matchNonce ?? fields.nonce
        }
      })
    }).pipe(Effect.provide(SignatureVerifier.layer))

  it.effect("verification_positive: each signed message verifies at its time", () =>
    Effect.gen(function* () {
      const cases = Object.entries(vectors<Signed>("verification_positive"))
      assert.strictEqual(cases.length, 4)
      for (const [name, vector] of cases) {
        const expected = differs[`verification_positive/${name}`]
        const result = yield* Effect.result(verifyVector(vector))
        if (expected === undefined) assert.strictEqual(result._tag, "Success", `${name}: ${JSON.stringify(result)}`)
        else assert.strictEqual(result._tag === "Failure" ? result.failure._tag : "verified", expected, name)
      }
    })
  )

  it.effect("verification_negative: each is refused (expired, another domain or nonce, a bad signature or date)", () =>
    Effect.gen(function* () {
      const cases = Object.entries(vectors<Signed>("verification_negative"))
      assert.strictEqual(cases.length, 10)
      for (const [name, vector] of cases) {
        const result = yield* Effect.result(verifyVector(vector))
        assert.strictEqual(result._tag, "Failure", name)
      }
    })
  )

  it.effect("a message with a scheme is checked against the expected scheme as well as the domain", () =>
    Effect.gen(function* () {
      const positive = vectors<{ message: string; fields: Fields }>("parsing_positive")
      const withScheme = yield* parseSiweMessage(positive["domain contains optional scheme"]!.message)
      assert.strictEqual(withScheme.scheme, "https")
      const expected = { domain: withScheme.domain, chainId: withScheme.chainId, nonce: withScheme.nonce }
      yield* TestClock.setTime(Date.parse(withScheme.issuedAt))
      yield* validateSiweMessage(withScheme, { ...expected, uri: withScheme.uri })
      yield* validateSiweMessage(withScheme, { ...expected, uri: withScheme.uri, scheme: "HTTPS" })
      const http = yield* Effect.flip(
        validateSiweMessage(withScheme, { ...expected, uri: withScheme.uri, scheme: "http" })
      )
      assert.deepStrictEqual([http._tag, http.errorCode], ["SiweSchemeMismatch", "SIWE_MISMATCH"])
      // Without `scheme`, the expected URI's: an http message for an https origin is refused.
      const downgraded = { ...withScheme, scheme: "http" }
      const refused = yield* Effect.flip(validateSiweMessage(downgraded, { ...expected, uri: withScheme.uri }))
      assert.strictEqual(refused._tag, "SiweSchemeMismatch")
      // A message without a scheme is checked on its domain alone.
      const schemeless = yield* parseSiweMessage(positive["scheme is not parsed from elsehwere in message"]!.message)
      assert.isUndefined(schemeless.scheme)
      yield* validateSiweMessage(schemeless, {
        domain: schemeless.domain,
        uri: schemeless.uri,
        chainId: schemeless.chainId,
        nonce: schemeless.nonce,
        scheme: "https"
      })
    })
  )

  it.effect("eip1271: the contract wallets' messages parse (their signatures need mainnet's contracts: not run)", () =>
    Effect.gen(function* () {
      const cases = Object.entries(vectors<{ message: string; signature: string }>("eip1271"))
      assert.strictEqual(cases.length, 2)
      for (const [name, vector] of cases)
        assert.strictEqual((yield* parseSiweMessage(vector.message)).version, "1", name)
    })
  )
})
