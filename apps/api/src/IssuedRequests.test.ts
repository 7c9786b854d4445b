/**
 * Issued payment requests over real HTTP on SQLite and anvil (issue 14, defect 1): a team holding its budget of
 * requests not executed yet is refused more with 409 `ISSUED_REQUESTS_LIMIT` (by count, and by stored bytes), while
 * another team issues as before; expired requests never executed are deleted by the sweep and free the budget.
 */
import { assert, layer } from "@effect/vitest"
import { EmbeddedChain } from "@svc/adapters/evm"
import { eventually } from "@svc/adapters/test/Eventually"
import type { TypedDataBundle } from "@svc/domain/eip712"
import { TeamRepository } from "@svc/domain/team"
import { Context, Duration, Effect, Layer } from "effect"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import { inject } from "vitest"
import {
  addMember,
  call,
  countRows,
  placeholderSignature,
  type SeededMember,
  seedTeam,
  signIn,
  startTestServerWith,
  type TestServer
} from "../test/TestServer.ts"

/** Two servers on one anvil suite: one with a small budget, one whose requests expire in a second and are swept. */
class Fixture extends Context.Service<Fixture, { readonly budgeted: TestServer; readonly shortLived: TestServer }>()(
  "test/issued-requests/Fixture"
) {}

const FixtureLayer = Layer.effect(
  Fixture,
  Effect.gen(function* () {
    const chainContext = yield* Layer.build(EmbeddedChain.layer({ rpcUrl: inject("rpcUrl"), chainId: 42161 })).pipe(
      Effect.orDie
    )
    const chain = Layer.succeedContext(chainContext)
    return {
      budgeted: yield* startTestServerWith({ chain, issuedRequests: { maxCount: 3, maxBytes: 64 * 1024 } }),
      shortLived: yield* startTestServerWith({
        chain,
        issuedRequests: { ttlSeconds: 1, keptAfterExpirySeconds: 0, sweepEvery: Duration.millis(100) }
      })
    }
  })
)

/** A team with an svc account address, its admin signed in, and one employee to pay. */
const team = (server: TestServer) =>
  Effect.gen(function* () {
    const seeded = yield* seedTeam(server, ["team_employee"])
    const admin = privateKeyToAccount(generatePrivateKey())
    yield* addMember(seeded.teamId, admin.address, "team_admin", `${admin.address}@t.example`).pipe(
      Effect.provide(server.context)
    )
    // Issuing only needs the account's address; nothing is executed here.
    yield* TeamRepository.use((t) => t.update(seeded.teamId, { svc_account: `0x${"ab".repeat(20)}` })).pipe(
      Effect.provide(server.context)
    )
    return {
      team: seeded.teamId,
      admin,
      token: yield* signIn(server, admin),
      employee: (seeded.members[0] as SeededMember).user
    }
  })

/** A batch body of `entries` payments to `to`. */
const batch = (from: string, to: string, entries = 1) => ({
  from,
  to: Array.from({ length: entries }, (_, index) => ({
    to,
    amount_cents: 100 + index,
    currency_symbol: "USD",
    invoice_description: `entry ${index}`
  })),
  pay_now: true
})

layer(FixtureLayer, { timeout: 180_000, excludeTestServices: true })("issued payment requests", (it) => {
  it.effect("a team over its budget gets 409 ISSUED_REQUESTS_LIMIT; another team is unaffected", () =>
    Effect.gen(function* () {
      const { budgeted: server } = yield* Fixture
      const a = yield* team(server)
      const b = yield* team(server)
      for (let n = 0; n < 3; n++) {
        const issued = yield* call(server, "POST", "/v2/payments", { token: a.token, body: batch(a.team, a.employee) })
        assert.strictEqual(issued.status, 200, JSON.stringify(issued.body))
      }
      const refused = yield* call(server, "POST", "/v2/payments", { token: a.token, body: batch(a.team, a.employee) })
      assert.strictEqual(refused.status, 409, JSON.stringify(refused.body))
      assert.strictEqual(refused.body.error_code, "ISSUED_REQUESTS_LIMIT")
      assert.include(refused.body.data, "execute them")
      const instant = yield* call(server, "POST", "/v2/payments/external_entity/instant", {
        token: a.token,
        body: {
          from: a.team,
          amount_cents: 500,
          payment_data: { invoice_description: "x" },
          external_recipient_email: "bob@example.com"
        }
      })
      assert.strictEqual(instant.status, 409, JSON.stringify(instant.body))
      assert.strictEqual(instant.body.error_code, "ISSUED_REQUESTS_LIMIT")
      // Refused before it is built: a request naming a recipient outside the team, which building would refuse with
      // 400, meets the budget first (issue 18, item 4).
      const notBuilt = yield* call(server, "POST", "/v2/payments", {
        token: a.token,
        body: batch(a.team, "us-000000000000")
      })
      assert.strictEqual(notBuilt.status, 409, JSON.stringify(notBuilt.body))
      assert.strictEqual(notBuilt.body.error_code, "ISSUED_REQUESTS_LIMIT")
      // The other tenant issues as before.
      const other = yield* call(server, "POST", "/v2/payments", { token: b.token, body: batch(b.team, b.employee) })
      assert.strictEqual(other.status, 200, JSON.stringify(other.body))
    })
  )

  it.effect("a member listed payable: false is refused 400 INVALID_RECIPIENT, named, and nothing is issued", () =>
    Effect.gen(function* () {
      const { budgeted: server } = yield* Fixture
      const d = yield* team(server)
      const users = yield* call(server, "GET", `/v2/teams/${d.team}/users`, { token: d.token })
      const admin = (users.body.data.users as Array<{ nanoid: string; role: string; payable: boolean }>).find(
        (user) => user.role === "team_admin"
      )
      assert.isFalse(admin?.payable)
      const before = yield* countRows(server, "issued_requests")
      const refused = yield* call(server, "POST", "/v2/payments", {
        token: d.token,
        body: batch(d.team, admin!.nanoid)
      })
      assert.strictEqual(refused.status, 400, JSON.stringify(refused.body))
      assert.strictEqual(refused.body.error_code, "INVALID_RECIPIENT")
      assert.include(refused.body.data, `${admin!.nanoid} is a team_admin of the team and cannot be paid`)
      assert.strictEqual(yield* countRows(server, "issued_requests"), before)
    })
  )

  it.effect("the same entry twice in a batch is refused 400, naming it; two invoices to one member pass", () =>
    Effect.gen(function* () {
      const { budgeted: server } = yield* Fixture
      const d = yield* team(server)
      const entry = { to: d.employee, amount_cents: 700, currency_symbol: "USD", invoice_description: "March" }
      const twice = yield* call(server, "POST", "/v2/payments", {
        token: d.token,
        body: { from: d.team, to: [entry, entry], pay_now: true }
      })
      assert.strictEqual(twice.status, 400, JSON.stringify(twice.body))
      assert.strictEqual(twice.body.error_code, "INVALID_RECIPIENT")
      assert.include(twice.body.data, "twice")
      const twoInvoices = yield* call(server, "POST", "/v2/payments", {
        token: d.token,
        body: { from: d.team, to: [entry, { ...entry, invoice_description: "April" }], pay_now: true }
      })
      assert.strictEqual(twoInvoices.status, 200, JSON.stringify(twoInvoices.body))
    })
  )

  it.effect("a request that would take a team past its stored bytes is refused; a smaller one is issued", () =>
    Effect.gen(function* () {
      const { budgeted: server } = yield* Fixture
      const c = yield* team(server)
      const large = yield* call(server, "POST", "/v2/payments", {
        token: c.token,
        body: batch(c.team, c.employee, 200)
      })
      assert.strictEqual(large.status, 409, JSON.stringify(large.body).slice(0, 300))
      assert.strictEqual(large.body.error_code, "ISSUED_REQUESTS_LIMIT")
      const small = yield* call(server, "POST", "/v2/payments", { token: c.token, body: batch(c.team, c.employee, 5) })
      assert.strictEqual(small.status, 200, JSON.stringify(small.body))
    })
  )

  it.effect("expired requests never executed are deleted by the sweep: a PUT then finds nothing", () =>
    Effect.gen(function* () {
      const { shortLived: server } = yield* Fixture
      const d = yield* team(server)
      const body = batch(d.team, d.employee)
      const issued = yield* call(server, "POST", "/v2/payments", { token: d.token, body })
      assert.strictEqual(issued.status, 200, JSON.stringify(issued.body))
      const bundle = issued.body.data as TypedDataBundle
      yield* eventually(
        Effect.map(countRows(server, "issued_requests"), (left) => left === 0),
        { what: "the expired request swept", every: "100 millis" }
      )
      const put = yield* call(server, "PUT", "/v2/payments", {
        token: d.token,
        body: { ...body, signer: d.admin.address, typed_data: bundle.typed_data, signature: placeholderSignature }
      })
      assert.strictEqual(put.status, 404, JSON.stringify(put.body))
      assert.strictEqual(put.body.error_code, "TYPED_DATA_NOT_FOUND")
    })
  )
})
