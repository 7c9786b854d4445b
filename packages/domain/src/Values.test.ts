import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { SiweChallengeQuery, SiweVerifyRequest } from "./auth/AuthRequests.ts"
import { Email, Mailbox, normalizeEmail } from "./Email.ts"
import { Address, Bytes32, HexBytes, Signature, Uint256String, WalletAddress, walletAddressOf } from "./Evm.ts"
import { Randomness } from "./Randomness.ts"
import { CalendarDate, IsoTimestamp } from "./Timestamp.ts"

const ok = (schema: Schema.Top, input: unknown) => Schema.decodeUnknownExit(schema as never)(input)._tag === "Success"

describe("value schemas", () => {
  it("EVM values follow the spec's patterns", () => {
    assert.isTrue(ok(Address, "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"))
    assert.isFalse(ok(Address, "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb9226"))
    assert.isTrue(ok(Signature, `0x${"1".repeat(130)}`))
    assert.isFalse(ok(Signature, `0x${"0".repeat(130)}`))
    assert.isTrue(ok(Bytes32, `0x${"a".repeat(64)}`))
    assert.isTrue(ok(HexBytes, "0x"))
    assert.isFalse(ok(HexBytes, "0x1"))
    assert.isTrue(ok(Uint256String, (2n ** 256n - 1n).toString()))
    for (const bad of [(2n ** 256n).toString(), "-1", "01", "1.5", "", "0x1"])
      assert.isFalse(ok(Uint256String, bad), bad)
  })

  it("wallet addresses decode to one form, lower-cased, whatever the case they come in", () => {
    const checksummed = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"
    assert.strictEqual(Schema.decodeUnknownSync(WalletAddress)(checksummed), checksummed.toLowerCase())
    assert.strictEqual(walletAddressOf(checksummed.toUpperCase().replace("0X", "0x")), checksummed.toLowerCase())
    for (const bad of ["0xf39Fd6e51aad88F6F4ce6aB8827279cffFb9226", "f39Fd6e51aad88F6F4ce6aB8827279cffFb92266", ""]) {
      assert.isFalse(ok(WalletAddress, bad), bad)
    }
  })

  it("e-mails and times", () => {
    assert.strictEqual(Schema.decodeUnknownSync(Email)("  Ada@Example.COM "), "ada@example.com")
    assert.isTrue(ok(Email, "ada@example.com"))
    for (const bad of ["ada", "ada@example", "a da@example.com", `${"a".repeat(250)}@example.com`]) {
      assert.isFalse(ok(Email, bad), bad)
    }
    assert.strictEqual(normalizeEmail("  Ada@Example.COM "), "ada@example.com")
    // Where mail is sent, a mailbox by RFC 5321's rules (RFC 6531's non-ASCII letters included).
    for (const good of ["ada@example.com", "o'brien+pay@sub.example.co", "josé@exämple.de", " Ada@Example.COM "]) {
      assert.isTrue(ok(Mailbox, good), good)
    }
    for (const bad of [
      "a@b.io\u0000",
      "a\u202e@b.io",
      "a@b\u200b.io",
      "a\u0007@b.io",
      "<b>x</b>@b.io",
      "a@b.io<script>",
      '"a b"@b.io',
      "a..b@b.io",
      ".a@b.io",
      "a@-b.io",
      "a@b_c.io",
      "a@[10.0.0.1]",
      `${"a".repeat(65)}@b.io`,
      `a@${"b".repeat(64)}.io`
    ]) {
      assert.isFalse(ok(Mailbox, bad), bad)
    }
    assert.isTrue(ok(IsoTimestamp, "2026-11-21T08:00:00.000Z"))
    assert.isFalse(ok(IsoTimestamp, "2026-11-21 08:00:00"))
    assert.isFalse(ok(IsoTimestamp, "2026-13-21T08:00:00Z"))
    assert.isFalse(ok(IsoTimestamp, "2026-02-31T08:00:00Z"))
    assert.isFalse(ok(IsoTimestamp, "2026-11-21T24:30:00Z"))
    assert.isTrue(ok(IsoTimestamp, "2028-02-29T23:59:59Z"))
    assert.isTrue(ok(CalendarDate, "2028-02-29"))
    for (const bad of ["2027-02-29", "2026-13-01", "2026-1-1"]) assert.isFalse(ok(CalendarDate, bad), bad)
  })

  it("sign-in bodies take a wallet address and signatures of any byte length", () => {
    assert.isTrue(ok(SiweChallengeQuery, { wallet: "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266" }))
    assert.isFalse(ok(SiweChallengeQuery, { wallet: "nope" }))
    const verify = { message: "m", sig: `0x${"ab".repeat(200)}`, nonce: "0123456789abcdef" }
    assert.isTrue(ok(SiweVerifyRequest, verify))
    assert.isFalse(ok(SiweVerifyRequest, { ...verify, sig: "0xabc" }))
    assert.isFalse(ok(SiweVerifyRequest, { ...verify, sig: `0x${"ab".repeat(4097)}` }))
    assert.isFalse(ok(SiweVerifyRequest, { ...verify, message: "" }))
    assert.isFalse(ok(SiweVerifyRequest, { ...verify, nonce: "short" }))
    assert.isFalse(
      ok(SiweChallengeQuery, { wallet: "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266", svcid: "x".repeat(129) })
    )
  })

  it.effect("the test randomness repeats for a seed and differs between seeds", () =>
    Effect.gen(function* () {
      const draw = (seed: number) =>
        Effect.gen(function* () {
          return Array.from(yield* (yield* Randomness).bytes(32))
        }).pipe(Effect.provide(Randomness.layerTest(seed)))
      assert.deepStrictEqual(yield* draw(1), yield* draw(1))
      assert.notDeepEqual(yield* draw(1), yield* draw(2))
      const secure = yield* Randomness.use((randomness) => randomness.bytes(32)).pipe(Effect.provide(Randomness.layer))
      assert.strictEqual(secure.length, 32)
    })
  )
})
