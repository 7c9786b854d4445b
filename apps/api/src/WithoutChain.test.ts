/**
 * A deployment without a chain (`ChainGateway.layerAbsent`, decision 0078): the same routes as with one; what needs the
 * chain answers 501 `NOT_IMPLEMENTED` after the caller's permission is checked, and writes nothing first.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import {
  type CallResult,
  call,
  placeholderSignature,
  placeholderTypedData,
  type SeededMember,
  seedTeam,
  signIn,
  startTestServer
} from "../test/TestServer.ts"

const assertNotImplemented = (response: CallResult, label: string) => {
  assert.strictEqual(response.status, 501, `${label}: ${JSON.stringify(response.body)}`)
  assert.strictEqual(response.body.error_code, "NOT_IMPLEMENTED", label)
}

describe("without a chain", () => {
  it.live("payments, balance and manager invites answer 501 after the permission check, and write nothing", () =>
    Effect.gen(function* () {
      const server = yield* startTestServer
      const { teamId, members } = yield* seedTeam(server, ["team_admin", "team_employee"])
      const [admin, employee] = members as [SeededMember, SeededMember]
      const adminToken = yield* signIn(server, admin.account)
      const employeeToken = yield* signIn(server, employee.account)
      const batch = {
        from: teamId,
        to: [{ to: employee.user, amount_cents: 100, currency_symbol: "USD", invoice_description: "x" }],
        pay_now: true
      }
      const instant = {
        from: teamId,
        amount_cents: 100,
        currency_symbol: "USD",
        external_recipient_email: "out@x.example",
        payment_data: {}
      }
      const execute = {
        ...batch,
        typed_data: placeholderTypedData(admin.account.address, admin.account.address),
        signer: admin.account.address,
        signature: placeholderSignature
      }
      const manager = {
        nanoid: teamId,
        invites: [{ email: "m@x.example", role: "team_viewer", wallet: employee.account.address }]
      }

      // The permission check comes first: an employee may do none of these.
      for (const [method, path, body] of [
        ["POST", "/v2/payments", batch],
        ["PUT", "/v2/payments", execute],
        ["POST", "/v2/payments/external_entity/instant", instant],
        ["POST", "/v2/invites/manager", manager]
      ] as const) {
        const refused = yield* call(server, method, path, { token: employeeToken, body })
        assert.strictEqual(refused.status, 403, `${method} ${path}: ${JSON.stringify(refused.body)}`)
      }

      // Allowed, they need the chain.
      assertNotImplemented(yield* call(server, "POST", "/v2/payments", { token: adminToken, body: batch }), "issue")
      assertNotImplemented(yield* call(server, "PUT", "/v2/payments", { token: adminToken, body: execute }), "execute")
      assertNotImplemented(
        yield* call(server, "POST", "/v2/payments/external_entity/instant", { token: adminToken, body: instant }),
        "instant"
      )
      assertNotImplemented(
        yield* call(server, "GET", `/v2/balance?nanoid=${teamId}`, { token: adminToken }),
        "team balance"
      )
      assertNotImplemented(
        yield* call(server, "GET", `/v2/balance?nanoid=${admin.user}`, { token: adminToken }),
        "own balance"
      )
      assertNotImplemented(
        yield* call(server, "POST", "/v2/invites/manager", { token: adminToken, body: manager }),
        "manager invite"
      )

      // Nothing was written on the way: no payment, no manager invite.
      const payments = yield* call(server, "GET", `/v2/payments?team_nanoid=${teamId}`, { token: adminToken })
      assert.strictEqual(payments.status, 200, JSON.stringify(payments.body))
      assert.deepStrictEqual(payments.body.data.items, [])
      const invites = yield* call(server, "GET", `/v2/invites?nanoid=${teamId}`, { token: adminToken })
      assert.strictEqual(invites.status, 200, JSON.stringify(invites.body))
      assert.deepStrictEqual(invites.body.data, [])

      // What needs no chain is served: the team's users, without account addresses.
      const users = yield* call(server, "GET", `/v2/teams/${teamId}/users`, { token: adminToken })
      assert.strictEqual(users.status, 200, JSON.stringify(users.body))
    }).pipe(Effect.scoped)
  )
})
