import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import { ErrorBody, ErrorCatalog, errorBody, errorCodes, statusOf } from "./ErrorCatalog.ts"

describe("ErrorCatalog", () => {
  it("codes are UPPER_SNAKE with a status of 4xx or 5xx and a message", () => {
    for (const code of errorCodes) {
      assert.match(code, /^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$/)
      assert.isTrue(statusOf(code) >= 400 && statusOf(code) < 600, code)
      assert.isNotEmpty(ErrorCatalog[code].message)
    }
  })

  it("holds the statuses DESIGN §5 fixes", () => {
    assert.strictEqual(statusOf("VALIDATION_ERROR"), 400)
    assert.strictEqual(statusOf("UNAUTHORIZED"), 401)
    assert.strictEqual(statusOf("INSUFFICIENT_PERMISSIONS"), 403)
    assert.strictEqual(statusOf("TEAM_NOT_FOUND"), 404)
    assert.strictEqual(statusOf("ALREADY_EXECUTED"), 409)
    assert.strictEqual(statusOf("EXPIRED_TYPED_DATA"), 410)
    assert.strictEqual(statusOf("IDEMPOTENCY_KEY_REUSED"), 422)
    assert.strictEqual(statusOf("RATE_LIMITED"), 429)
  })

  it("builds the error body of SPEC §7 and refuses unknown codes", () => {
    const body = errorBody("TEAM_NOT_FOUND")
    assert.deepStrictEqual(body, { success: false, data: "Team not found", error_code: "TEAM_NOT_FOUND" })
    assert.deepStrictEqual(Schema.decodeUnknownSync(ErrorBody)(body), body)
    assert.strictEqual(errorBody("VALIDATION_ERROR", "count: at most 500").data, "count: at most 500")
    assert.isTrue(Schema.decodeUnknownExit(ErrorBody)({ ...body, error_code: "NOPE" })._tag === "Failure")
  })
})
