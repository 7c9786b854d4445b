/**
 * Bearer authentication (SPEC §5) as HttpApi middleware: the contract side, shared with the client.
 */
import type { Caller } from "@svc/domain/user"
import { Context } from "effect"
import { HttpApiMiddleware, HttpApiSecurity } from "effect/http-api"
import { Unauthorized } from "./ApiError.ts"

/** The caller, as the access token names them. */
export class CurrentUser extends Context.Service<CurrentUser, Caller>()("@svc/adapters/http/CurrentUser") {}

/** Requires `Authorization: Bearer <JWT>`; provides the `CurrentUser`; refuses with 401. */
export class Authentication extends HttpApiMiddleware.Service<Authentication, { provides: CurrentUser }>()(
  "@svc/adapters/http/Authentication",
  {
    security: { bearer: HttpApiSecurity.bearer },
    error: Unauthorized
  }
) {}
