/**
 * Sign-in (SPEC §5) and bearer authentication, over real HTTP against the server on SQLite (on jongodb where first
 * sign-ins race).
 */
import { createHash, randomBytes } from "node:crypto"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { Wallet } from "ethers"
import { SignJWT } from "jose"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import { call, signIn, startMongoTestServer, startTestServer, type TestServer } from "../test/TestServer.ts"

const assertError = (response: { status: number; body: unknown }, status: number, code: string) => {
  assert.strictEqual(response.status, status, JSON.stringify(response.body))
  const body = response.body as { success: boolean; data: unknown; error_code: string }
  assert.strictEqual(body.success, false)
  assert.isString(body.data)
  assert.strictEqual(body.error_code, code)
}

const getMessage = (server: TestServer, wallet: string) =>
  Effect.map(call(server, "GET", `/v2/auth/siwe?wallet=${wallet}`), (r) => {
    assert.strictEqual(r.status, 200, JSON.stringify(r.body))
    return { message: r.body.data.siwe as string, nonce: r.body.data.nonce as string }
  })

describe("sign-in with Ethereum", () => {
  it.live("a viem account signs in; the JWT opens the API; the unknown wallet became a user", () =>
    Effect.gen(function* () {
      const server = yield* startTestServer
      const account = privateKeyToAccount(generatePrivateKey())
      const { message, nonce } = yield* getMessage(server, account.address)
      assert.match(message, /^127\.0\.0\.1:\d+ wants you to sign in with your Ethereum account:/)
      assert.match(message, new RegExp(`\\nNonce: ${nonce}\\n`))
      const sig = yield* Effect.promise(() => account.signMessage({ message }))
      const verified = yield* call(server, "POST", "/v2/auth/verify", { body: { message, sig, nonce } })
      assert.strictEqual(verified.status, 200, JSON.stringify(verified.body))
      assert.strictEqual(verified.body.success, true)
      const jwt = verified.body.data.jwt as string
      const [header, payload] = jwt
        .split(".")
        .slice(0, 2)
        .map((part) => JSON.parse(Buffer.from(part, "base64url").toString()))
      assert.strictEqual(header.alg, "HS256")
      assert.isString(header.kid)
      assert.match(payload.sub, /^us-.{12}$/)
      assert.strictEqual(payload.exp - payload.iat, 24 * 60 * 60)
      assert.isString(payload.jti)
      const teams = yield* call(server, "GET", "/v2/user/teams", { token: jwt })
      assert.deepStrictEqual(teams.body, { success: true, data: { teams: [] } })
      // Signing in again is the same user.
      const again = yield* signIn(server, account)
      const payload2 = JSON.parse(Buffer.from(again.split(".")[1] ?? "", "base64url").toString())
      assert.strictEqual(payload2.sub, payload.sub)
    }).pipe(Effect.scoped)
  )

  it.live("first sign-ins of one wallet at once agree on one user (the losers of the insert read the winner's)", () =>
    Effect.gen(function* () {
      // On MongoDB each sign-in's lookup and insert wait on the server, so the sign-ins interleave between them.
      const server = yield* startMongoTestServer()
      const account = privateKeyToAccount(generatePrivateKey())
      const challenges = yield* Effect.forEach(Array.from({ length: 8 }), () => getMessage(server, account.address))
      const bodies = yield* Effect.forEach(challenges, ({ message, nonce }) =>
        Effect.map(
          Effect.promise(() => account.signMessage({ message })),
          (sig) => ({ message, sig, nonce })
        )
      )
      const verified = yield* Effect.forEach(bodies, (body) => call(server, "POST", "/v2/auth/verify", { body }), {
        concurrency: "unbounded"
      })
      const subjects = verified.map((response) => {
        assert.strictEqual(response.status, 200, JSON.stringify(response.body))
        const jwt = response.body.data.jwt as string
        return JSON.parse(Buffer.from(jwt.split(".")[1] ?? "", "base64url").toString()).sub as string
      })
      assert.strictEqual(new Set(subjects).size, 1)
    }).pipe(Effect.scoped)
  )

  it.live("an ethers wallet signs in", () =>
    Effect.gen(function* () {
      const server = yield* startTestServer
      const wallet = Wallet.createRandom()
      const { message, nonce } = yield* getMessage(server, wallet.address.toLowerCase())
      const sig = yield* Effect.promise(() => wallet.signMessage(message))
      const verified = yield* call(server, "POST", "/v2/auth/verify", { body: { message, sig, nonce } })
      assert.strictEqual(verified.status, 200, JSON.stringify(verified.body))
      assert.isString(verified.body.data.jwt)
    }).pipe(Effect.scoped)
  )

  it.live("a reused nonce, a message for another domain and a signature by another key are refused", () =>
    Effect.gen(function* () {
      const server = yield* startTestServer
      const account = privateKeyToAccount(generatePrivateKey())
      const other = privateKeyToAccount(generatePrivateKey())

      const first = yield* getMessage(server, account.address)
      const sig = yield* Effect.promise(() => account.signMessage({ message: first.message }))
      assert.strictEqual((yield* call(server, "POST", "/v2/auth/verify", { body: { ...first, sig } })).status, 200)
      const reused = yield* call(server, "POST", "/v2/auth/verify", { body: { ...first, sig } })
      assertError(reused, 401, "EXPIRED_NONCE")

      const second = yield* getMessage(server, account.address)
      const foreign = second.message.replace(/^[^ ]+ wants you/, "evil.example wants you")
      const foreignSig = yield* Effect.promise(() => account.signMessage({ message: foreign }))
      assertError(
        yield* call(server, "POST", "/v2/auth/verify", {
          body: { message: foreign, sig: foreignSig, nonce: second.nonce }
        }),
        401,
        "SIWE_MISMATCH"
      )

      const third = yield* getMessage(server, account.address)
      const otherSig = yield* Effect.promise(() => other.signMessage({ message: third.message }))
      assertError(
        yield* call(server, "POST", "/v2/auth/verify", { body: { ...third, sig: otherSig } }),
        401,
        "SIGNATURE_MISMATCH"
      )
      // The refused attempts did not burn the nonce: the rightful signature still works once.
      const rightful = yield* Effect.promise(() => account.signMessage({ message: third.message }))
      assert.strictEqual(
        (yield* call(server, "POST", "/v2/auth/verify", { body: { ...third, sig: rightful } })).status,
        200
      )

      const unknownNonce = yield* call(server, "POST", "/v2/auth/verify", {
        body: { message: third.message, sig: rightful, nonce: "0123456789abcdef0123456789abcdef" }
      })
      assertError(unknownNonce, 401, "EXPIRED_NONCE")
      assertError(yield* call(server, "GET", "/v2/auth/siwe?wallet=0x123"), 400, "VALIDATION_ERROR")
      assertError(yield* call(server, "GET", "/v2/auth/siwe"), 400, "VALIDATION_ERROR")
      assertError(
        yield* call(server, "POST", "/v2/auth/verify", {
          body: { message: "hello", sig: rightful, nonce: third.nonce }
        }),
        400,
        "INVALID_SIWE_MESSAGE"
      )
    }).pipe(Effect.scoped)
  )
})

describe("bearer authentication", () => {
  const kidOf = (secret: string) => createHash("sha256").update(secret).digest("hex").slice(0, 16)
  const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url")

  it.live("answers 401 for no token, a garbled token, an expired token, another key and alg none", () =>
    Effect.gen(function* () {
      const server = yield* startTestServer
      const account = privateKeyToAccount(generatePrivateKey())
      const good = yield* signIn(server, account)
      const claims = JSON.parse(Buffer.from(good.split(".")[1] ?? "", "base64url").toString())
      const now = Math.floor(Date.now() / 1000)
      const sign = (secret: string, iat: number, exp: number) =>
        Effect.promise(() =>
          new SignJWT({ wallet: claims.wallet })
            .setProtectedHeader({ alg: "HS256", typ: "JWT", kid: kidOf(secret) })
            .setSubject(claims.sub)
            .setIssuer("svc")
            .setIssuedAt(iat)
            .setExpirationTime(exp)
            .setJti("test")
            .sign(new TextEncoder().encode(secret))
        )
      const expired = yield* sign(server.jwtSecret, now - 2 * 86400, now - 86400)
      const otherKey = yield* sign(randomBytes(32).toString("hex"), now, now + 3600)
      const unsigned = `${b64({ alg: "none", typ: "JWT", kid: kidOf(server.jwtSecret) })}.${b64({ ...claims, exp: now + 3600 })}.`
      const stillValid = yield* sign(server.jwtSecret, now, now + 3600)

      assert.strictEqual((yield* call(server, "GET", "/v2/user/teams", { token: good })).status, 200)
      assert.strictEqual((yield* call(server, "GET", "/v2/user/teams", { token: stillValid })).status, 200)
      assertError(yield* call(server, "GET", "/v2/user/teams"), 401, "UNAUTHORIZED")
      assertError(yield* call(server, "GET", "/v2/user/teams", { token: "garbled.token.value" }), 401, "UNAUTHORIZED")
      assertError(yield* call(server, "GET", "/v2/user/teams", { token: expired }), 401, "JWT_EXPIRED")
      assertError(yield* call(server, "GET", "/v2/user/teams", { token: otherKey }), 401, "UNAUTHORIZED")
      assertError(yield* call(server, "GET", "/v2/user/teams", { token: unsigned }), 401, "UNAUTHORIZED")
      assertError(
        yield* call(server, "GET", "/v2/user/teams", { headers: { authorization: `Basic ${good}` } }),
        401,
        "UNAUTHORIZED"
      )
      // Our own key, but claims we never issue: issued in the future, living past 24 hours, or naming nobody.
      const fromTheFuture = yield* sign(server.jwtSecret, now + 3600, now + 7200)
      const tooLong = yield* sign(server.jwtSecret, now, now + 30 * 86400)
      const nobody = yield* Effect.promise(() =>
        new SignJWT({ wallet: claims.wallet })
          .setProtectedHeader({ alg: "HS256", typ: "JWT", kid: kidOf(server.jwtSecret) })
          .setSubject("us-000000000000")
          .setIssuer("svc")
          .setIssuedAt(now)
          .setExpirationTime(now + 3600)
          .setJti("test")
          .sign(new TextEncoder().encode(server.jwtSecret))
      )
      assertError(yield* call(server, "GET", "/v2/user/teams", { token: fromTheFuture }), 401, "UNAUTHORIZED")
      assertError(yield* call(server, "GET", "/v2/user/teams", { token: tooLong }), 401, "UNAUTHORIZED")
      assertError(yield* call(server, "GET", "/v2/user/teams", { token: nobody }), 401, "UNAUTHORIZED")
    }).pipe(Effect.scoped)
  )

  it.live("POST /v2/auth/refresh renews a session without a signature, for 7 days after its sign-in", () =>
    Effect.gen(function* () {
      const server = yield* startTestServer
      const account = privateKeyToAccount(generatePrivateKey())
      const good = yield* signIn(server, account)
      const claims = JSON.parse(Buffer.from(good.split(".")[1] ?? "", "base64url").toString())
      assert.strictEqual(claims.auth_time, claims.iat)
      const renewed = yield* call(server, "POST", "/v2/auth/refresh", { token: good })
      assert.strictEqual(renewed.status, 200, JSON.stringify(renewed.body))
      const jwt = renewed.body.data.jwt as string
      const renewedClaims = JSON.parse(Buffer.from(jwt.split(".")[1] ?? "", "base64url").toString())
      assert.strictEqual(renewedClaims.sub, claims.sub)
      assert.strictEqual(renewedClaims.auth_time, claims.auth_time)
      assert.notStrictEqual(renewedClaims.jti, claims.jti)
      assert.strictEqual((yield* call(server, "GET", "/v2/user/teams", { token: jwt })).status, 200)
      assertError(yield* call(server, "POST", "/v2/auth/refresh"), 401, "UNAUTHORIZED")
      // A valid token of a session signed in 8 days ago (renewed since): the wallet signs in again.
      const now = Math.floor(Date.now() / 1000)
      const old = yield* Effect.promise(() =>
        new SignJWT({ wallet: claims.wallet, auth_time: now - 8 * 86400 })
          .setProtectedHeader({ alg: "HS256", typ: "JWT", kid: kidOf(server.jwtSecret) })
          .setSubject(claims.sub)
          .setIssuer("svc")
          .setIssuedAt(now)
          .setExpirationTime(now + 3600)
          .setJti("test")
          .sign(new TextEncoder().encode(server.jwtSecret))
      )
      assert.strictEqual((yield* call(server, "GET", "/v2/user/teams", { token: old })).status, 200)
      const refused = yield* call(server, "POST", "/v2/auth/refresh", { token: old })
      assertError(refused, 401, "UNAUTHORIZED")
      assert.include(refused.body.data, "sign in with the wallet again")
    }).pipe(Effect.scoped)
  )
})
