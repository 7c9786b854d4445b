import { assert, describe, it } from "@effect/vitest"
import { Option } from "effect"
import { translate, v1Routes } from "./V1Routes.ts"

describe("V1Routes", () => {
  it("maps every v1 operation of SPEC §9.6 to a v2 route under /v2/", () => {
    for (const route of v1Routes) {
      assert.isAbove(route.v2.length, 0)
      for (const target of route.v2) assert.match(target.path, /^\/v2\//)
    }
  })

  it("renames the v1 path parameters to their v2 names", () => {
    const t = Option.getOrThrow(translate("delete", "/v1/teams/42/talent/7"))
    assert.deepStrictEqual(t.params, { team_nanoid: "42", user_nanoid: "7" })
    assert.deepStrictEqual(t.route.v2, [{ method: "DELETE", path: "/v2/teams/{team_nanoid}/member/{user_nanoid}" }])
  })

  it("turns every v1 payment call into the two-step create and execute of v2", () => {
    for (const [method, path] of [
      ["PUT", "/v1/payments/batch-pay"],
      ["POST", "/v1/payments/pay"],
      ["POST", "/v1/payments/batch-pay/intents"]
    ] as const) {
      const t = Option.getOrThrow(translate(method, path))
      assert.deepStrictEqual(
        t.route.v2.map((r) => `${r.method} ${r.path}`),
        ["POST /v2/payments", "PUT /v2/payments"]
      )
    }
  })

  it("accepts both spellings of the v1 sign-in path and ignores the query string", () => {
    assert.isTrue(Option.isSome(translate("GET", "/v1/api/siwe?wallet=0x1")))
    assert.isTrue(Option.isSome(translate("GET", "/v1/auth/api/siwe?wallet=0x1")))
  })

  it("finds nothing for a route v1 never had", () => {
    assert.isTrue(Option.isNone(translate("GET", "/v1/unknown")))
    assert.isTrue(Option.isNone(translate("PATCH", "/v1/teams")))
  })
})
