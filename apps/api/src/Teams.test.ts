/**
 * The team routes over real HTTP against the server on jongodb: success paths and every limit at its edges.
 */
import { assert, describe, it } from "@effect/vitest"
import { SmtpMailer } from "@svc/adapters/mail"
import { eventually } from "@svc/adapters/test/Eventually"
import { startTestSmtpServer, textOf } from "@svc/adapters/test/TestSmtpServer"
import { NotFound } from "@svc/contract"
import { walletAddressOf } from "@svc/domain/Evm"
import type { TeamId } from "@svc/domain/Ids"
import { Effect, Redacted, type Scope } from "effect"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import {
  addMember,
  call,
  client,
  seedTeam,
  signIn,
  startMongoTestServer,
  startTestServer,
  startTestServerWith,
  type TestServer,
  type TestServerOptions
} from "../test/TestServer.ts"

const assertError = (response: { status: number; body: unknown }, status: number, code: string) => {
  assert.strictEqual(response.status, status, JSON.stringify(response.body))
  assert.strictEqual((response.body as { error_code: string }).error_code, code)
  assert.strictEqual((response.body as { success: boolean }).success, false)
}

describe("team routes", () => {
  it.live("list my teams, create, read, update, delete a team (typed client)", () =>
    Effect.gen(function* () {
      const server = yield* startTestServer
      const { teamId, companyId, members } = yield* seedTeam(server, ["team_admin", "team_employee"])
      const admin = members[0]!
      const token = yield* signIn(server, admin.account)
      const api = yield* client(server, token)

      const mine = yield* api.teams.listMine()
      assert.deepStrictEqual(mine.data.teams, [
        { nanoid: teamId, name: "Test Team", description: "", member_count: 2, status: "active", role: "team_admin" }
      ])

      const newAdmin = privateKeyToAccount(generatePrivateKey())
      const created = yield* api.teams.create({
        payload: {
          name: "Payroll",
          description: "Monthly",
          entity_nanoid: companyId,
          admin_wallet: walletAddressOf(newAdmin.address)
        }
      })
      assert.strictEqual(created.success, true)
      assert.match(created.data.team_nanoid, /^te-.{12}$/)
      // The creator is the admin; the named wallet is invited and joins by accepting (decision 0041).
      assert.strictEqual(created.data.admin_wallet, admin.account.address.toLowerCase())
      assert.strictEqual(created.data.member_count, 1)
      const newToken = yield* signIn(server, newAdmin)
      const newApi = yield* client(server, newToken)
      const newTeam = created.data.team_nanoid as TeamId
      const accepted = yield* call(server, "POST", "/v2/invites/accept", {
        token: newToken,
        body: { invite_nanoid: created.data.admin_invite_nanoid }
      })
      assert.strictEqual(accepted.status, 200, JSON.stringify(accepted.body))
      const view = yield* newApi.teams.get({ params: { team_nanoid: newTeam } })
      assert.strictEqual(view.data.name, "Payroll")
      assert.strictEqual(view.data.balance, "0")
      assert.deepStrictEqual(
        view.data.administrators.map((a) => a.type),
        ["team_admin", "team_admin"]
      )

      const updated = yield* newApi.teams.update({ params: { team_nanoid: newTeam }, payload: { name: "Payroll EU" } })
      assert.strictEqual(updated.data.name, "Payroll EU")
      const deleted = yield* newApi.teams.delete({ params: { team_nanoid: newTeam } })
      assert.deepStrictEqual(deleted.data, { team_nanoid: newTeam, deleted: true })
      assertError(yield* call(server, "GET", `/v2/teams/${newTeam}`, { token: newToken }), 404, "TEAM_NOT_FOUND")
      // The typed client decodes error responses by status into the contract's classes.
      const refused = yield* Effect.flip(newApi.teams.get({ params: { team_nanoid: newTeam } }))
      assert.instanceOf(refused, NotFound)
      assert.strictEqual((refused as NotFound).error_code, "TEAM_NOT_FOUND")
      assert.deepStrictEqual((yield* newApi.teams.listMine()).data.teams, [])
      assert.deepStrictEqual(
        (yield* api.teams.listMine()).data.teams.map((t) => t.nanoid),
        [teamId]
      )

      // Only an admin of the company may create teams in it.
      const employeeToken = yield* signIn(server, members[1]!.account)
      assertError(
        yield* call(server, "POST", "/v2/teams", {
          token: employeeToken,
          body: { name: "Nope", entity_nanoid: companyId, admin_wallet: newAdmin.address }
        }),
        403,
        "INSUFFICIENT_PERMISSIONS"
      )
      // An unknown company answers as someone else's does: the answer reveals no company ids.
      assertError(
        yield* call(server, "POST", "/v2/teams", {
          token,
          body: { name: "Nope", entity_nanoid: "co-doesnotexist", admin_wallet: newAdmin.address }
        }),
        403,
        "INSUFFICIENT_PERMISSIONS"
      )
      // Names and descriptions without control or bidi characters; avatars https: only.
      for (const name of ["Pay\u0000roll", "Pay\u202eroll", "Pay\nroll"]) {
        assertError(
          yield* call(server, "POST", "/v2/teams", {
            token,
            body: { name, entity_nanoid: companyId, admin_wallet: newAdmin.address }
          }),
          400,
          "VALIDATION_ERROR"
        )
      }
      for (const avatar of ["javascript:alert(1)", "http://example.com/a.png", "data:image/png;base64,AAAA"]) {
        assertError(
          yield* call(server, "PUT", `/v2/teams/${teamId}`, { token, body: { avatar } }),
          400,
          "VALIDATION_ERROR"
        )
      }
      const avatar = "https://cdn.example.com/a.png"
      assert.strictEqual(
        (yield* call(server, "PUT", `/v2/teams/${teamId}`, { token, body: { avatar } })).body.data.avatar,
        avatar
      )
      assertError(
        yield* call(server, "POST", "/v2/teams", {
          token,
          body: { name: "N", entity_nanoid: companyId, admin_wallet: newAdmin.address }
        }),
        400,
        "VALIDATION_ERROR"
      )
    }).pipe(Effect.scoped)
  )

  /** On a server `start`ed with `mailer`, a real SMTP server's: the notice a named wallet's user gets is received. */
  const consent = <E>(start: (mailer: TestServerOptions["mailer"]) => Effect.Effect<TestServer, E, Scope.Scope>) =>
    Effect.gen(function* () {
      const smtp = yield* startTestSmtpServer
      const server = yield* start(SmtpMailer.layer({ url: Redacted.make(smtp.url), from: "svc <teams@svc.test>" }))
      const { companyId, members } = yield* seedTeam(server, ["team_admin", "team_employee"])
      const creator = members[0]!
      const token = yield* signIn(server, creator.account)
      const named = privateKeyToAccount(generatePrivateKey())
      const namedToken = yield* signIn(server, named)
      const create = (admin_wallet: string) =>
        call(server, "POST", "/v2/teams", { token, body: { name: "Consent", entity_nanoid: companyId, admin_wallet } })

      const created = yield* create(named.address)
      assert.strictEqual(created.status, 200, JSON.stringify(created.body))
      const team = created.body.data.team_nanoid as string
      // Not a member yet: the team is not theirs to read, nor in their list.
      assertError(
        yield* call(server, "GET", `/v2/teams/${team}`, { token: namedToken }),
        403,
        "INSUFFICIENT_PERMISSIONS"
      )
      assert.deepStrictEqual((yield* call(server, "GET", "/v2/user/teams", { token: namedToken })).body.data.teams, [])
      const invite = created.body.data.admin_invite_nanoid as string
      assert.match(invite, /^in-.{12}$/)
      assert.strictEqual(created.body.data.admin_wallet, creator.account.address.toLowerCase())
      assert.strictEqual(created.body.data.member_count, 1)
      // The creator is its admin and sees the pending invite.
      const view = yield* call(server, "GET", `/v2/teams/${team}`, { token })
      assert.strictEqual(view.status, 200)
      assert.deepStrictEqual(
        view.body.data.administrators.map((a: { user_nanoid: string }) => a.user_nanoid),
        [creator.user]
      )
      const pending = yield* call(server, "GET", `/v2/invites?nanoid=${team}`, { token })
      assert.deepStrictEqual(
        pending.body.data.map((i: { nanoid: string }) => i.nanoid),
        [invite]
      )
      // It is bound to the wallet: another signed-in wallet cannot answer it, a token does not open it, and it is
      // never resent as a link.
      const stranger = yield* signIn(server, privateKeyToAccount(generatePrivateKey()))
      for (const who of [stranger, token]) {
        assertError(
          yield* call(server, "POST", "/v2/invites/accept", { token: who, body: { invite_nanoid: invite } }),
          404,
          "INVITE_NOT_FOUND"
        )
      }
      assertError(
        yield* call(server, "POST", "/v2/invites/accept", {
          token: stranger,
          body: { invite_nanoid: invite, token: "0".repeat(64) }
        }),
        404,
        "INVITE_NOT_FOUND"
      )
      assertError(
        yield* call(server, "POST", `/v2/invites/${invite}/resend`, { token }),
        409,
        "INVALID_STATE_TRANSITION"
      )

      // No token was ever issued for it: one sent anyway is a wrong token, even by the named wallet (docs/invites.md).
      assertError(
        yield* call(server, "POST", "/v2/invites/accept", {
          token: namedToken,
          body: { invite_nanoid: invite, token: "0".repeat(64) }
        }),
        404,
        "INVITE_NOT_FOUND"
      )

      // Accepting makes the named wallet a team_admin, once.
      const accepted = yield* call(server, "POST", "/v2/invites/accept", {
        token: namedToken,
        body: { invite_nanoid: invite }
      })
      assert.strictEqual(accepted.status, 200, JSON.stringify(accepted.body))
      assert.strictEqual(accepted.body.data.state, "accepted")
      assert.strictEqual(accepted.body.data.role, "team_admin")
      const mine = yield* call(server, "GET", "/v2/user/teams", { token: namedToken })
      assert.deepStrictEqual(
        mine.body.data.teams.map((t: { nanoid: string; role: string }) => [t.nanoid, t.role]),
        [[team, "team_admin"]]
      )
      assertError(
        yield* call(server, "POST", "/v2/invites/accept", { token: namedToken, body: { invite_nanoid: invite } }),
        409,
        "INVITE_ALREADY_ANSWERED"
      )

      // A named wallet may decline instead: it never joins.
      const declined = yield* create(named.address)
      const rejected = yield* call(server, "POST", "/v2/invites/reject", {
        token: namedToken,
        body: { invite_nanoid: declined.body.data.admin_invite_nanoid }
      })
      assert.strictEqual(rejected.status, 200, JSON.stringify(rejected.body))
      assertError(
        yield* call(server, "GET", `/v2/teams/${declined.body.data.team_nanoid}`, { token: namedToken }),
        403,
        "INSUFFICIENT_PERMISSIONS"
      )

      // Naming oneself needs no invite.
      const own = yield* create(creator.account.address)
      assert.strictEqual(own.status, 200, JSON.stringify(own.body))
      assert.isUndefined(own.body.data.admin_invite_nanoid)
      assert.strictEqual(own.body.data.admin_wallet, creator.account.address.toLowerCase())

      // A named wallet whose user has an e-mail gets a notice naming the invite, queued with it (on either database).
      const toEmployee = yield* create(members[1]!.account.address)
      assert.strictEqual(toEmployee.status, 200, JSON.stringify(toEmployee.body))
      const noticed = String(toEmployee.body.data.admin_invite_nanoid)
      const notice = yield* eventually(() => smtp.received.find((mail) => textOf(mail).includes(noticed)), {
        what: `a notice naming ${noticed}`
      })
      assert.match(notice.to[0] ?? "", /^m1-.*@test\.example$/)
    }).pipe(Effect.scoped)

  it.live("a wallet named admin_wallet joins a new team only when it accepts, signed in with that wallet", () =>
    consent((mailer) => startTestServerWith({ mailer }))
  )
  it.live("the same on MongoDB", () => consent((mailer) => startMongoTestServer({ mailer })))

  it.live("the team's read shows the balance to roles that may read it, and hides it from the others", () =>
    Effect.gen(function* () {
      const server = yield* startTestServer
      const { teamId, members } = yield* seedTeam(server, [
        "team_admin",
        "team_finance_admin",
        "team_viewer",
        "team_employee",
        "team_contractor"
      ])
      for (const member of members) {
        const token = yield* signIn(server, member.account)
        const team = yield* call(server, "GET", `/v2/teams/${teamId}`, { token })
        const balance = yield* call(server, "GET", `/v2/balance?nanoid=${teamId}`, { token })
        assert.strictEqual(team.status, 200, JSON.stringify(team.body))
        // The team's read shows the balance to the roles GET /v2/balance does not refuse 403 (`balance.read`).
        const payable = member.role === "team_employee" || member.role === "team_contractor"
        assert.deepStrictEqual(
          [balance.status === 403, "balance" in team.body.data],
          [payable, !payable],
          `${member.role}: ${JSON.stringify(balance.body)}`
        )
      }
    })
  )

  it.live("member summary, member removal, team and member settings", () =>
    Effect.gen(function* () {
      const server = yield* startTestServer
      const { teamId, members } = yield* seedTeam(server, ["team_admin", "team_employee", "team_contractor"])
      const [admin, employee, contractor] = members as [(typeof members)[0], (typeof members)[0], (typeof members)[0]]
      const token = yield* signIn(server, admin.account)
      const api = yield* client(server, token)

      const summary = yield* api.teams.memberSummary({ params: { team_nanoid: teamId, user_nanoid: employee.user } })
      assert.strictEqual(summary.data.user.nanoid, employee.user)
      assert.strictEqual(summary.data.user.blockchain_address, employee.account.address.toLowerCase())
      assert.strictEqual(summary.data.relationship_type, "team_employee")
      assert.strictEqual(summary.data.company.incorporation_type, "sole_proprietorship")
      assert.deepStrictEqual(summary.data.pay_schedules, [])
      // A payable member may read their own summary, not others'.
      const employeeToken = yield* signIn(server, employee.account)
      const own = yield* call(server, "GET", `/v2/teams/${teamId}/member/${employee.user}/summary`, {
        token: employeeToken
      })
      assert.strictEqual(own.status, 200)
      assertError(
        yield* call(server, "GET", `/v2/teams/${teamId}/member/${contractor.user}/summary`, { token: employeeToken }),
        403,
        "INSUFFICIENT_PERMISSIONS"
      )

      const teamSettings = yield* api.teams.getSettings({ params: { team_nanoid: teamId } })
      assert.deepStrictEqual(teamSettings.data, {
        default_pay_now: true,
        invoice_prefix: "",
        payment_reminder_days: 3,
        block_duplicates: false
      })
      const putTeam = yield* api.teams.updateSettings({
        params: { team_nanoid: teamId },
        payload: { invoice_prefix: "INV-", payment_reminder_days: 7 }
      })
      assert.deepStrictEqual(putTeam.data, {
        default_pay_now: true,
        invoice_prefix: "INV-",
        payment_reminder_days: 7,
        block_duplicates: false
      })
      assert.deepStrictEqual((yield* api.teams.getSettings({ params: { team_nanoid: teamId } })).data, putTeam.data)
      // Lengths count characters: nine emoji are nine of the prefix's 16, not 18 (issue 21, item 3).
      const emojiPrefix = "\u{1f680}".repeat(9)
      const putEmoji = yield* api.teams.updateSettings({
        params: { team_nanoid: teamId },
        payload: { invoice_prefix: emojiPrefix }
      })
      assert.strictEqual(putEmoji.data.invoice_prefix, emojiPrefix)
      yield* api.teams.updateSettings({ params: { team_nanoid: teamId }, payload: { invoice_prefix: "INV-" } })

      const memberPath = { team_nanoid: teamId, user_nanoid: contractor.user }
      const memberSettings = yield* api.teams.getMemberSettings({ params: memberPath })
      assert.strictEqual(memberSettings.data.hourly_rate_usd_cents, 0)
      const putMember = yield* api.teams.updateMemberSettings({
        params: memberPath,
        payload: { hourly_rate_usd_cents: 12_500 }
      })
      assert.strictEqual(putMember.data.hourly_rate_usd_cents, 12_500)
      assert.strictEqual(
        (yield* api.teams.getMemberSettings({ params: memberPath })).data.hourly_rate_usd_cents,
        12_500
      )

      const removed = yield* api.teams.removeMember({ params: memberPath })
      assert.deepStrictEqual(removed.data, { team_nanoid: teamId, user_nanoid: contractor.user, removed: true })
      assertError(
        yield* call(server, "DELETE", `/v2/teams/${teamId}/member/${contractor.user}`, { token }),
        404,
        "MEMBER_NOT_FOUND"
      )
      assertError(
        yield* call(server, "GET", `/v2/teams/${teamId}/member/${contractor.user}/settings`, { token }),
        404,
        "MEMBER_NOT_FOUND"
      )
      assertError(
        yield* call(server, "DELETE", `/v2/teams/${teamId}/member/${admin.user}`, { token }),
        409,
        "LAST_ADMIN"
      )
    }).pipe(Effect.scoped)
  )

  it.live("team users: full list, pages, offsets, e-mail filters and every limit at its edges", () =>
    Effect.gen(function* () {
      const server = yield* startTestServer
      const { teamId, members } = yield* seedTeam(server, ["team_admin"])
      const emails: Array<string> = []
      for (let i = 0; i < 104; i++) {
        const email = `user${String(i).padStart(3, "0")}@team.example`
        emails.push(email)
        yield* addMember(
          teamId,
          privateKeyToAccount(generatePrivateKey()).address,
          i % 2 === 0 ? "team_employee" : "team_contractor",
          email
        ).pipe(Effect.provide(server.context))
      }
      const token = yield* signIn(server, members[0]!.account)
      const get = (query: string) => call(server, "GET", `/v2/teams/${teamId}/users${query}`, { token })

      const all = yield* get("")
      assert.strictEqual(all.status, 200)
      assert.strictEqual(all.body.data.users.length, 105)
      assert.deepStrictEqual(all.body.data.pagination, {
        page: 1,
        count: 105,
        offset: 0,
        next_page: 2,
        next_offset: 105,
        has_more: false
      })
      const first = all.body.data.users[1]
      assert.strictEqual(first.email, "user000@team.example")
      assert.strictEqual(first.role, "team_employee")
      assert.strictEqual(first.payable, true)
      assert.strictEqual(all.body.data.users[0].payable, false)
      assert.deepStrictEqual(Object.keys(first.onboarding).sort(), ["moderation_status", "onboarded", "role", "step"])
      assert.strictEqual(first.onboarding.step, "initial")

      const page2 = yield* get("?page=2&count=50")
      assert.strictEqual(page2.body.data.users.length, 50)
      assert.strictEqual(page2.body.data.users[0].email, "user049@team.example")
      assert.deepStrictEqual(page2.body.data.pagination, {
        page: 2,
        count: 50,
        offset: 50,
        next_page: 3,
        next_offset: 100,
        has_more: true
      })
      const lastPage = yield* get("?page=3&count=50")
      assert.strictEqual(lastPage.body.data.users.length, 5)
      assert.isFalse(lastPage.body.data.pagination.has_more)
      const byOffset = yield* get("?offset=100")
      assert.strictEqual(byOffset.body.data.users.length, 5)
      assert.strictEqual(byOffset.body.data.pagination.count, 100)

      // count at its edges
      assert.strictEqual((yield* get("?page=1&count=1")).body.data.users.length, 1)
      assert.strictEqual((yield* get("?page=1&count=500")).body.data.users.length, 105)
      assertError(yield* get("?page=1&count=0"), 400, "VALIDATION_ERROR")
      assertError(yield* get("?page=1&count=501"), 400, "VALIDATION_ERROR")
      assertError(yield* get("?page=0"), 400, "VALIDATION_ERROR")
      assertError(yield* get("?offset=-1"), 400, "VALIDATION_ERROR")
      // Paging far past any team is refused, not a database error.
      assertError(yield* get("?offset=2147483648"), 400, "VALIDATION_ERROR")
      assertError(yield* get("?page=999999999&count=500"), 400, "VALIDATION_ERROR")
      assert.strictEqual((yield* get("?offset=1000000")).body.data.users.length, 0)

      // When nothing follows, next_* name the end and never go past it; the end names itself (decision 0040).
      assert.deepStrictEqual(lastPage.body.data.pagination, {
        page: 3,
        count: 50,
        offset: 100,
        next_page: 4,
        next_offset: 105,
        has_more: false
      })
      const endPage = yield* get("?page=4&count=50")
      assert.deepStrictEqual(endPage.body.data.users, [])
      assert.strictEqual(endPage.body.data.pagination.next_page, 4)
      const pastEnd = (yield* get("?offset=1000000")).body.data.pagination
      assert.strictEqual(pastEnd.next_offset, 105)
      assert.strictEqual(pastEnd.next_page, 3)
      // Both page and offset, as the OpenAPI description says: offset wins, and the answer's page is the one it falls
      // in; past the end, next_offset points back at the end, below the offset asked.
      const both = yield* get("?page=2&offset=5&count=50")
      assert.deepStrictEqual(both.body.data.users, (yield* get("?offset=5&count=50")).body.data.users)
      assert.deepStrictEqual(both.body.data.pagination, {
        page: 1,
        count: 50,
        offset: 5,
        next_page: 2,
        next_offset: 55,
        has_more: true
      })
      const bothPastEnd = (yield* get("?page=2&offset=500&count=50")).body.data.pagination
      assert.deepStrictEqual([bothPastEnd.offset, bothPastEnd.next_offset, bothPastEnd.has_more], [500, 105, false])
      // Naive clients following next_offset stop, whichever way they decide to, and see every user once.
      for (const stopOn of ["empty page", "no progress"] as const) {
        const seen: Array<string> = []
        let offset = 0
        for (let requests = 0; requests < 10; requests++) {
          const answer = (yield* get(`?offset=${offset}&count=40`)).body.data
          seen.push(...answer.users.map((u: { nanoid: string }) => u.nanoid))
          if (stopOn === "empty page" ? answer.users.length === 0 : answer.pagination.next_offset === offset) break
          offset = answer.pagination.next_offset
        }
        assert.strictEqual(seen.length, 105, stopOn)
        assert.strictEqual(new Set(seen).size, 105, stopOn)
      }
      assertError(yield* get("?count=abc"), 400, "VALIDATION_ERROR")

      // e-mails: repeated and comma-separated, unknown ones silently absent, 100 allowed, 101 refused
      const two = yield* get(`?emails=${emails[3]}&emails=${emails[7]},nobody@x.example`)
      assert.deepStrictEqual(
        two.body.data.users.map((u: { email: string }) => u.email),
        [emails[3], emails[7]]
      )
      const hundred = yield* get(`?emails=${emails.slice(0, 100).join(",")}`)
      assert.strictEqual(hundred.status, 200)
      assert.strictEqual(hundred.body.data.users.length, 100)
      assertError(yield* get(`?emails=${emails.slice(0, 101).join(",")}`), 400, "VALIDATION_ERROR")
      const repeated = yield* get(
        `?${emails
          .slice(0, 101)
          .map((e) => `emails=${e}`)
          .join("&")}`
      )
      assertError(repeated, 400, "VALIDATION_ERROR")
      const upper = yield* get(`?emails=${emails[5]!.toUpperCase()}`)
      assert.strictEqual(upper.body.data.users.length, 1)

      // ids: 14, 15, 16 characters and a wrong prefix
      const pathOf = (id: string) => call(server, "GET", `/v2/teams/${id}/users`, { token })
      assert.strictEqual((yield* pathOf(teamId)).status, 200)
      assertError(yield* pathOf(teamId.slice(0, 14)), 404, "INVALID_ID")
      assertError(yield* pathOf(`${teamId}x`), 404, "INVALID_ID")
      assertError(yield* pathOf(`us-${teamId.slice(3)}`), 404, "INVALID_ID")
      assertError(yield* pathOf("te-000000000000"), 404, "TEAM_NOT_FOUND")
      const summaryOf = (user: string) => call(server, "GET", `/v2/teams/${teamId}/member/${user}/summary`, { token })
      assert.strictEqual((yield* summaryOf(members[0]!.user)).status, 200)
      assertError(yield* summaryOf(members[0]!.user.slice(0, 14)), 404, "INVALID_ID")
      assertError(yield* summaryOf(`${members[0]!.user}0`), 404, "INVALID_ID")
      assertError(yield* summaryOf(`te-${members[0]!.user.slice(3)}`), 404, "INVALID_ID")
    }).pipe(Effect.scoped)
  )
})
