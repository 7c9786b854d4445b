import { assert, describe, it } from "@effect/vitest"
import { ExpiredTypedData } from "@svc/domain/eip712"
import { InsufficientPermissions, LastAdmin } from "@svc/domain/membership"
import { Conflict, Forbidden, Gone, toApiError } from "./ApiError.ts"

describe("toApiError", () => {
  it("answers a domain error's catalog code with its status, and its own message when it has one", () => {
    const precise = toApiError(new InsufficientPermissions({ message: "Only your own balance" }))
    assert.instanceOf(precise, Forbidden)
    assert.deepInclude(precise, {
      success: false,
      data: "Only your own balance",
      error_code: "INSUFFICIENT_PERMISSIONS"
    })
    assert.deepInclude(toApiError(new InsufficientPermissions({})), {
      data: "Your role does not allow this operation"
    })
    const last = toApiError(new LastAdmin({ team: "te-000000000001" }))
    assert.instanceOf(last, Conflict)
    assert.deepInclude(last, { data: "A team must keep at least one team_admin", error_code: "LAST_ADMIN" })
    // An error without a message of its own keeps the catalog's; its fields never reach the answer.
    const expired = toApiError(new ExpiredTypedData({ expires: "1", now: 2 }))
    assert.instanceOf(expired, Gone)
    assert.deepInclude(expired, {
      data: "The typed data has expired; create it again",
      error_code: "EXPIRED_TYPED_DATA"
    })
  })
})
