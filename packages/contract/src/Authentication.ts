/**
 * Bearer authentication (SPEC §5) as HttpApi middleware: the contract side, shared with the client.
 */
import type { Caller } from "@svc/domain/user"
import { Context } from "effect"
import { HttpApiMiddleware, HttpApiSecurity, OpenApi } from "effect/http-api"
import { Unauthorized } from "./ApiError.ts"

/** The caller, as the access token names them. */
export class CurrentUser extends Context.Service<CurrentUser, Caller>()("@svc/contract/CurrentUser") {}

/**
 * `Authorization: Bearer <JWT>`, documented as OpenAPI's `http`/`bearer` scheme (lower case, as the specification
 * writes it, so tools such as Scalar's Authorize box recognise it); the server reads the scheme in any case.
 */
const bearerToken = HttpApiSecurity.http({ scheme: "bearer" }).pipe(
  HttpApiSecurity.annotate(OpenApi.Format, "JWT"),
  HttpApiSecurity.annotate(
    OpenApi.Description,
    "The `jwt` of POST /v2/auth/verify (SIWE sign-in, see the guide above); it lives 24 hours."
  )
)

/** Requires `Authorization: Bearer <JWT>`; provides the `CurrentUser`; refuses with 401. */
export class Authentication extends HttpApiMiddleware.Service<Authentication, { provides: CurrentUser }>()(
  "@svc/contract/Authentication",
  {
    security: { bearer: bearerToken },
    error: Unauthorized
  }
) {}
