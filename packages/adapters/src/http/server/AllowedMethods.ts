/**
 * 405 for a path the contract serves with another method (`PATCH /v2/teams/te-…`), with `Allow` naming the methods
 * that path has; a path the contract does not know stays 404 ROUTE_NOT_FOUND.
 */
import { type Cause, Effect, Exit, Schema } from "effect"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import { HttpApi, type HttpApiGroup } from "effect/http-api"
import { errorResponse } from "./ErrorEnvelope.ts"

/** The methods the contract serves on a path (none for a path it does not know). */
export type MethodsOf = (path: string) => ReadonlyArray<string>

/** One endpoint's path: its segments (`:name` a parameter), and whether its parameters' values are ones it decodes. */
interface Route {
  readonly segments: ReadonlyArray<string>
  readonly accepts: (params: Record<string, string>) => boolean
  readonly method: string
}

/** A path segment as the router hands it to a parameter (a malformed escape stays as sent). */
const decoded = (part: string) => {
  try {
    return decodeURIComponent(part)
  } catch {
    return part
  }
}

/** Whether `route` serves `parts`: its literals equal, and its parameters' values ones its schema decodes. */
const serves = (route: Route, parts: ReadonlyArray<string>) => {
  if (route.segments.length !== parts.length) return false
  const params: Record<string, string> = {}
  for (const [index, segment] of route.segments.entries()) {
    const part = parts[index] ?? ""
    if (segment.startsWith(":")) {
      if (part === "") return false
      params[segment.slice(1)] = decoded(part)
    } else if (segment !== part) return false
  }
  // `DELETE /v2/invites/:invite_nanoid` does not serve `/v2/invites/accept`: `accept` is no invite id.
  return route.accepts(params)
}

/** Reads every endpoint of `api` once: its method and path, its parameters with their schemas. */
export const methodsOf = <Id extends string, Groups extends HttpApiGroup.Constraint>(
  api: HttpApi.HttpApi<Id, Groups>
): MethodsOf => {
  const routes: Array<Route> = []
  HttpApi.reflect(api, {
    onGroup: () => undefined,
    onEndpoint: ({ endpoint }) => {
      const schema = endpoint.params
      const decode = schema === undefined ? undefined : Schema.decodeUnknownExit(schema as Schema.Decoder<unknown>)
      routes.push({
        segments: endpoint.path.split("/"),
        accepts: (params) => decode === undefined || Exit.isSuccess(decode(params)),
        method: endpoint.method
      })
    }
  })
  return (path) => {
    const parts = path.split("/")
    return [...new Set(routes.filter((route) => serves(route, parts)).map((route) => route.method))]
  }
}

const isRouteNotFound = (cause: Cause.Cause<unknown>) =>
  cause.reasons.some((reason) => {
    const value = reason._tag === "Fail" ? reason.error : undefined
    return (
      typeof value === "object" &&
      value !== null &&
      "reason" in value &&
      (value as { readonly reason: { readonly _tag?: string } }).reason?._tag === "RouteNotFound"
    )
  })

/** Answers 405 with `Allow` when `app` found no route but the path is served with other methods. */
export const withAllowedMethods =
  (methods: MethodsOf) =>
  <E, R>(app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
    Effect.catchCause(app, (cause) =>
      Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
        const allowed = isRouteNotFound(cause) ? methods(request.url.split("?")[0] ?? "") : []
        return allowed.length === 0
          ? Effect.failCause(cause)
          : Effect.succeed(
              HttpServerResponse.setHeader(
                errorResponse("METHOD_NOT_ALLOWED", `${request.method} is not served here; use ${allowed.join(", ")}`),
                "allow",
                allowed.join(", ")
              )
            )
      })
    )
