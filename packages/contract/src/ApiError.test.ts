import { assert, describe, it } from "@effect/vitest"
import { ExpiredTypedData } from "@svc/domain/eip712"
import { ErrorCatalog, type ErrorCode } from "@svc/domain/errors"
import { InsufficientPermissions, LastAdmin } from "@svc/domain/membership"
import {
  apiError,
  BadRequest,
  Conflict,
  Forbidden,
  Gone,
  InternalError,
  NotFound,
  NotImplemented,
  ServiceUnavailable,
  statusOfApiError,
  toApiError,
  Unauthorized,
  Unprocessable
} from "./ApiError.ts"

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

  it("every code an endpoint may answer keeps its catalog status on the wire (500 and 503 included)", () => {
    const classes: Record<number, abstract new (...args: never) => unknown> = {
      400: BadRequest,
      401: Unauthorized,
      403: Forbidden,
      404: NotFound,
      409: Conflict,
      410: Gone,
      422: Unprocessable,
      500: InternalError,
      501: NotImplemented,
      503: ServiceUnavailable
    }
    // 405, 408, 413, 415, 429 and 431 are answered by the middleware or the server in the same shape, never by an
    // endpoint.
    const middlewareOnly = new Set([405, 408, 413, 415, 429, 431])
    for (const [code, entry] of Object.entries(ErrorCatalog)) {
      if (middlewareOnly.has(entry.status)) continue
      const expected = classes[entry.status]
      assert.isDefined(expected, `${code}: no error class answers ${entry.status}`)
      assert.instanceOf(apiError(code as ErrorCode), expected as never, code)
      // What the CLI and the v1 proxy read back from a decoded failure.
      assert.strictEqual(statusOfApiError(apiError(code as ErrorCode)), entry.status, code)
    }
    assert.isUndefined(statusOfApiError(new Error("not the contract's")))
  })
})
