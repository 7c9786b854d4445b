/**
 * Where each v1 operation lives in v2 (SPEC §9.6), and the translation of a v1 request line to its v2 route.
 *
 * v1 ids are numeric or svcid addresses; v2 ids are nanoids. A route's path parameters are carried over by name;
 * `V1Translation` maps their values. `POST /v1/invites` also invited managers in v1; which v2 route
 * (`POST /v2/invites`, or `POST` then `PUT /v2/invites/manager`) depends on the body's role, so the table lists the
 * member form.
 */
import { Option } from "effect"

/** One row of the v1 to v2 table: a v1 method and path pattern, and the v2 operations that replace it. */
export interface V1Route {
  readonly v1: { readonly method: string; readonly path: string }
  readonly v2: ReadonlyArray<{ readonly method: string; readonly path: string }>
}

const route = (method: string, path: string, ...v2: Array<`${string} ${string}`>): V1Route => ({
  v1: { method, path },
  v2: v2.map((line) => {
    const [m = "", p = ""] = line.split(" ")
    return { method: m, path: p }
  })
})

const pay = ["POST /v2/payments", "PUT /v2/payments"] as const

/**
 * SPEC §9.6, plus the v1 paths real clients use (`/v1/auth/api/siwe`, `batch-pay-intents`), and the balance under
 * both spellings (`/v1/svcid/...` is the brand-replaced one, DESIGN §5b; `/v1/riseid/...` the one real clients send).
 */
export const v1Routes: ReadonlyArray<V1Route> = [
  route("GET", "/v1/api/siwe", "GET /v2/auth/siwe"),
  route("GET", "/v1/auth/api/siwe", "GET /v2/auth/siwe"),
  route("POST", "/v1/api/siwe", "POST /v2/auth/verify"),
  route("POST", "/v1/auth/api/siwe", "POST /v2/auth/verify"),
  route("GET", "/v1/teams", "GET /v2/user/teams"),
  route("GET", "/v1/teams/{teamId}/talent", "GET /v2/teams/{team_nanoid}/users"),
  route("GET", "/v1/teams/{teamId}/talent/{talentId}", "GET /v2/teams/{team_nanoid}/member/{user_nanoid}/summary"),
  route("DELETE", "/v1/teams/{teamId}/talent/{talentId}", "DELETE /v2/teams/{team_nanoid}/member/{user_nanoid}"),
  route("POST", "/v1/payments/pay", ...pay),
  route("PUT", "/v1/payments/pay", ...pay),
  route("POST", "/v1/payments/batch-pay", ...pay),
  route("PUT", "/v1/payments/batch-pay", ...pay),
  route("POST", "/v1/payments/batch-pay/intents", ...pay),
  route("POST", "/v1/payments/batch-pay-intents", ...pay),
  route("GET", "/v1/payments", "GET /v2/payments"),
  route("GET", "/v1/svcid/{svc_id}/balance", "GET /v2/balance?nanoid={nanoid}"),
  route("GET", "/v1/riseid/{rise_id}/balance", "GET /v2/balance?nanoid={nanoid}"),
  route("GET", "/v1/invites", "GET /v2/invites"),
  route("POST", "/v1/invites", "POST /v2/invites"),
  route("POST", "/v1/invites/warmed", "POST /v2/invites")
]

const parameterNames: Record<string, string> = {
  teamId: "team_nanoid",
  talentId: "user_nanoid",
  svc_id: "nanoid",
  rise_id: "nanoid"
}

const matcher = (path: string) =>
  new RegExp(`^${path.replace(/\{(\w+)\}/g, (_, name: string) => `(?<${name}>[^/]+)`)}/?$`)
const compiled = v1Routes.map((r) => ({ route: r, pattern: matcher(r.v1.path) }))

/** A v1 request line matched to its v2 operations, with the v1 path parameters renamed to their v2 names. */
export interface Translation {
  readonly route: V1Route
  readonly params: Readonly<Record<string, string>>
}

/** Finds the v2 operations for a v1 `method` and `path` (query string ignored); none when v1 had no such route. */
export const translate = (method: string, path: string): Option.Option<Translation> => {
  const bare = path.split("?")[0] ?? path
  for (const { route, pattern } of compiled) {
    if (route.v1.method !== method.toUpperCase()) continue
    const match = pattern.exec(bare)
    if (!match) continue
    const params: Record<string, string> = {}
    for (const [name, value] of Object.entries(match.groups ?? {})) params[parameterNames[name] ?? name] = value
    return Option.some({ route, params })
  }
  return Option.none()
}
