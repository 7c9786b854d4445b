/**
 * Member invites over real HTTP, with a real SMTP server receiving the mails (DESIGN §5b, issue 11): invite, mail,
 * accept with a fresh wallet (viem and ethers), the token working once, revoke and resend, and another tenant kept
 * out. On SQLite and on MongoDB.
 */
import { assert, describe, it } from "@effect/vitest"
import { SmtpMailer } from "@svc/adapters/mail"
import { type ReceivedMail, startTestSmtpServer, textOf } from "@svc/adapters/test/TestSmtpServer"
import { Effect, Redacted, type Scope } from "effect"
import { Wallet } from "ethers"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import {
  type CallResult,
  call,
  seedTeam,
  signIn,
  startMongoTestServer,
  startTestServerWith,
  type TestServer,
  type TestServerOptions
} from "../test/TestServer.ts"

const assertError = (response: CallResult, status: number, code: string) => {
  assert.strictEqual(response.status, status, JSON.stringify(response.body))
  assert.deepStrictEqual(Object.keys(response.body).sort(), ["data", "error_code", "request_id", "success"])
  assert.strictEqual(response.body.error_code, code)
  assert.strictEqual(response.body.success, false)
}

/** The invite id and token of the link in a received invite mail. */
const linkOf = (mail: ReceivedMail) => {
  const match = /\/invites\/accept\?invite=(in-[\w-]{12})&token=([0-9a-f]{64})/.exec(textOf(mail))
  assert.isNotNull(match, textOf(mail))
  return { invite: match![1]!, token: match![2]! }
}

/** Signs in a fresh ethers wallet through SIWE (an independent signer implementation). */
const signInWithEthers = (server: TestServer, wallet: Pick<Wallet, "address" | "signMessage">) =>
  Effect.gen(function* () {
    const siwe = yield* call(server, "GET", `/v2/auth/siwe?wallet=${wallet.address}`)
    const message: string = siwe.body.data.siwe
    const sig = yield* Effect.promise(() => wallet.signMessage(message))
    const verified = yield* call(server, "POST", "/v2/auth/verify", {
      body: { message, sig, nonce: siwe.body.data.nonce }
    })
    assert.strictEqual(verified.status, 200, JSON.stringify(verified.body))
    return verified.body.data.jwt as string
  })

const scenario = (start: (options: TestServerOptions) => Effect.Effect<TestServer, unknown, Scope.Scope>) =>
  Effect.gen(function* () {
    const smtp = yield* startTestSmtpServer
    const server = yield* start({
      mailer: SmtpMailer.layer({ url: Redacted.make(smtp.url), from: "svc <invites@svc.test>" })
    })
    const { teamId, companyId, members } = yield* seedTeam(server, ["team_admin", "team_employee"])
    const admin = yield* signIn(server, members[0]!.account)

    // An admin invites two people, one warm; a mail server that refuses at first only delays the mails.
    smtp.refuse = true
    const created = yield* call(server, "POST", "/v2/invites", {
      token: admin,
      body: {
        nanoid: teamId,
        invites: [
          { email: "Ada@Example.com" },
          { email: "bob@example.com", prefill: { first_name: "Bob", last_name: "Warm" } }
        ],
        role: "team_contractor"
      }
    })
    assert.strictEqual(created.status, 200, JSON.stringify(created.body))
    assert.strictEqual(created.body.success, true)
    const [adaInvite, bobInvite] = created.body.data.nanoids as Array<string>
    assert.match(adaInvite!, /^in-.{12}$/)
    smtp.refuse = false
    const mails = yield* smtp.waitFor(2)
    const byRecipient = new Map(mails.map((m) => [m.to[0], m]))
    const adaMail = byRecipient.get("ada@example.com")!
    const bobMail = byRecipient.get("bob@example.com")!
    assert.strictEqual(adaMail.from, "invites@svc.test")
    assert.strictEqual(linkOf(adaMail).invite, adaInvite)
    assert.include(textOf(bobMail), "Hello Bob Warm,")
    assert.include(textOf(bobMail), `${server.baseUrl}/invites/accept?invite=${bobInvite}&token=`)

    // The list answers `data` alone (SPEC §1 rule 2), for the team and for its company.
    const listed = yield* call(server, "GET", `/v2/invites?nanoid=${teamId}`, { token: admin })
    assert.strictEqual(listed.status, 200, JSON.stringify(listed.body))
    assert.deepStrictEqual(Object.keys(listed.body), ["data"])
    assert.deepStrictEqual(
      listed.body.data.map((i: { nanoid: string }) => i.nanoid).sort(),
      [adaInvite, bobInvite].sort()
    )
    const bobView = listed.body.data.find((i: { nanoid: string }) => i.nanoid === bobInvite)
    assert.deepStrictEqual(bobView, {
      nanoid: bobInvite,
      invitee_name: "Bob Warm",
      email: "bob@example.com",
      inviter_name: "Test team_admin",
      inviter_email: bobView.inviter_email,
      company: { name: "Test Co", avatar: "" },
      team: { name: "Test Team", avatar: "" }
    })
    const byCompany = yield* call(server, "GET", `/v2/invites?nanoid=${companyId}`, { token: admin })
    assert.deepStrictEqual(byCompany.body, listed.body)

    // Ada accepts with a fresh viem wallet: a member with the role, her e-mail recorded on her user.
    const ada = privateKeyToAccount(generatePrivateKey())
    const adaToken = yield* signIn(server, ada)
    const { token } = linkOf(adaMail)
    assertError(
      yield* call(server, "POST", "/v2/invites/accept", {
        token: adaToken,
        body: { invite_nanoid: adaInvite, token: "0".repeat(64) }
      }),
      404,
      "INVITE_NOT_FOUND"
    )
    const accepted = yield* call(server, "POST", "/v2/invites/accept", {
      token: adaToken,
      body: { invite_nanoid: adaInvite, token }
    })
    assert.strictEqual(accepted.status, 200, JSON.stringify(accepted.body))
    assert.strictEqual(accepted.body.data.state, "accepted")
    assert.strictEqual(accepted.body.data.team_nanoid, teamId)
    const users = yield* call(server, "GET", `/v2/teams/${teamId}/users`, { token: admin })
    const adaUser = users.body.data.users.find((u: { email: string }) => u.email === "ada@example.com")
    assert.strictEqual(adaUser?.role, "team_contractor")
    assert.strictEqual(adaUser?.payable, true)

    // The token works once, whoever presents it.
    assertError(
      yield* call(server, "POST", "/v2/invites/accept", { token: adaToken, body: { invite_nanoid: adaInvite, token } }),
      409,
      "INVITE_ALREADY_ANSWERED"
    )
    const stranger = yield* signIn(server, privateKeyToAccount(generatePrivateKey()))
    assertError(
      yield* call(server, "POST", "/v2/invites/reject", { token: stranger, body: { invite_nanoid: adaInvite, token } }),
      409,
      "INVITE_ALREADY_ANSWERED"
    )

    // Another tenant cannot list or touch the invites, and learns nothing of them.
    const other = yield* seedTeam(server, ["team_admin"], { name: "Other" })
    const otherAdmin = yield* signIn(server, other.members[0]!.account)
    assertError(
      yield* call(server, "GET", `/v2/invites?nanoid=${teamId}`, { token: otherAdmin }),
      403,
      "INSUFFICIENT_PERMISSIONS"
    )
    assertError(
      yield* call(server, "GET", `/v2/invites?nanoid=${companyId}`, { token: otherAdmin }),
      403,
      "INSUFFICIENT_PERMISSIONS"
    )
    assertError(
      yield* call(server, "DELETE", `/v2/invites/${bobInvite}`, { token: otherAdmin }),
      404,
      "INVITE_NOT_FOUND"
    )
    assertError(
      yield* call(server, "POST", `/v2/invites/${bobInvite}/resend`, { token: otherAdmin }),
      404,
      "INVITE_NOT_FOUND"
    )
    assertError(
      yield* call(server, "DELETE", "/v2/invites/in-000000000000", { token: otherAdmin }),
      404,
      "INVITE_NOT_FOUND"
    )
    // An employee of the team may not manage its invites either.
    const employee = yield* signIn(server, members[1]!.account)
    assertError(yield* call(server, "DELETE", `/v2/invites/${bobInvite}`, { token: employee }), 404, "INVITE_NOT_FOUND")
    assertError(
      yield* call(server, "POST", "/v2/invites", {
        token: employee,
        body: { nanoid: teamId, invites: [{ email: "x@example.com" }], role: "team_employee" }
      }),
      403,
      "INSUFFICIENT_PERMISSIONS"
    )

    // A resend replaces Bob's token: the first link stops working, the new one is mailed.
    const resent = yield* call(server, "POST", `/v2/invites/${bobInvite}/resend`, { token: admin })
    assert.strictEqual(resent.status, 200, JSON.stringify(resent.body))
    const third = (yield* smtp.waitFor(3))[2]!
    assert.strictEqual(third.to[0], "bob@example.com")
    const bob = Wallet.createRandom()
    const bobToken = yield* signInWithEthers(server, bob)
    assertError(
      yield* call(server, "POST", "/v2/invites/accept", {
        token: bobToken,
        body: { invite_nanoid: bobInvite, token: linkOf(bobMail).token }
      }),
      404,
      "INVITE_NOT_FOUND"
    )
    // Revoked, the new link fails with a clear 410 and changes nothing.
    const revoked = yield* call(server, "DELETE", `/v2/invites/${bobInvite}`, { token: admin })
    assert.strictEqual(revoked.body.data.state, "revoked")
    assertError(
      yield* call(server, "POST", "/v2/invites/accept", {
        token: bobToken,
        body: { invite_nanoid: bobInvite, token: linkOf(third).token }
      }),
      410,
      "INVITE_REVOKED"
    )
    assertError(yield* call(server, "DELETE", `/v2/invites/${bobInvite}`, { token: admin }), 410, "INVITE_REVOKED")
    const after = yield* call(server, "GET", `/v2/teams/${teamId}/users`, { token: admin })
    assert.strictEqual(after.body.data.users.length, 3)
    assert.deepStrictEqual((yield* call(server, "GET", `/v2/invites?nanoid=${teamId}`, { token: admin })).body, {
      data: []
    })

    // A second invite for Bob, accepted with the ethers wallet.
    const again = yield* call(server, "POST", "/v2/invites", {
      token: admin,
      body: { nanoid: teamId, invites: [{ email: "bob@example.com" }], role: "team_employee", anonymous: true }
    })
    const fourth = (yield* smtp.waitFor(4))[3]!
    assert.notInclude(textOf(fourth), "Test team_admin")
    const joined = yield* call(server, "POST", "/v2/invites/accept", {
      token: bobToken,
      body: { invite_nanoid: again.body.data.nanoids[0], token: linkOf(fourth).token }
    })
    assert.strictEqual(joined.status, 200, JSON.stringify(joined.body))
    assert.strictEqual(joined.body.data.role, "team_employee")
    return { server, teamId }
  }).pipe(Effect.scoped)

describe("member invites over HTTP with SMTP", () => {
  it.live("invite, mail, accept once, revoke, resend, and other tenants kept out (SQLite)", () =>
    Effect.gen(function* () {
      yield* scenario((options) => startTestServerWith(options))
    })
  )

  it.live("the same on MongoDB", () =>
    Effect.gen(function* () {
      yield* scenario((options) => startMongoTestServer(options))
    })
  )

  it.live("bad input: more than 100 e-mails, a manager role, an address RFC 5321 refuses, a malformed invite id", () =>
    Effect.gen(function* () {
      const server = yield* startTestServerWith({})
      const { teamId, members } = yield* seedTeam(server, ["team_admin"])
      const admin = yield* signIn(server, members[0]!.account)
      const many = Array.from({ length: 101 }, (_, i) => ({ email: `p${i}@example.com` }))
      assertError(
        yield* call(server, "POST", "/v2/invites", {
          token: admin,
          body: { nanoid: teamId, invites: many, role: "team_employee" }
        }),
        400,
        "VALIDATION_ERROR"
      )
      assertError(
        yield* call(server, "POST", "/v2/invites", {
          token: admin,
          body: { nanoid: teamId, invites: [{ email: "a@example.com" }], role: "team_admin" }
        }),
        400,
        "VALIDATION_ERROR"
      )
      assertError(
        yield* call(server, "POST", "/v2/invites", {
          token: admin,
          body: { nanoid: teamId, invites: [{ email: "not-an-email" }], role: "team_employee" }
        }),
        400,
        "VALIDATION_ERROR"
      )
      // An address by RFC 5321's rules: no NUL, bidi override, zero-width space, markup, quotes or spaces. Nothing
      // is invited, nothing mailed.
      for (const email of [
        "a@b.io\u0000",
        "a\u202e@b.io",
        "a@b\u200b.io",
        "<b>x</b>@b.io",
        "a@b.io<script>",
        '"a b"@b.io',
        "a..b@b.io",
        "a@-b.io"
      ]) {
        for (const [path, invite] of [
          ["/v2/invites", { email }],
          ["/v2/invites/manager", { email, role: "team_viewer", wallet: "0x000000000000000000000000000000000000dead" }]
        ] as const) {
          const refused = yield* call(server, "POST", path, {
            token: admin,
            body: { nanoid: teamId, invites: [invite], ...(path === "/v2/invites" ? { role: "team_employee" } : {}) }
          })
          assertError(refused, 400, "VALIDATION_ERROR")
        }
      }
      const listed = yield* call(server, "GET", `/v2/invites?nanoid=${teamId}`, { token: admin })
      assert.deepStrictEqual(listed.body.data, [])
      assertError(yield* call(server, "DELETE", "/v2/invites/in-short", { token: admin }), 404, "INVALID_ID")
      assertError(yield* call(server, "GET", `/v2/invites?nanoid=${teamId}`), 401, "UNAUTHORIZED")
    }).pipe(Effect.scoped)
  )
})
