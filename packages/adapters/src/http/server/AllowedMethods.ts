/**
 * 405 for a path the contract serves with another method (`PATCH /v2/teams/te-…`), with `Allow` naming the methods
 * that path has; a path the contract does not know stays 404 ROUTE_NOT_FOUND.
 */
import { type Cause, Effect } from "effect"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import { HttpApi, type HttpApiGroup } from "effect/http-api"
import { errorResponse } from "./ErrorEnvelope.ts"

/** The methods the contract serves on a path (none for a path it does not know). */
export type MethodsOf = (path: string) => ReadonlyArray<string>

const segmentPattern = (segment: string) =>
  segment.startsWith(":") ? "[^/]+" : segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/** Reads every endpoint of `api` once: its method and path pattern. */
export const methodsOf = <Id extends string, Groups extends HttpApiGroup.Constraint>(
  api: HttpApi.HttpApi<Id, Groups>
): MethodsOf => {
  const routes: Array<{ readonly pattern: RegExp; readonly method: string }> = []
  HttpApi.reflect(api, {
    onGroup: () => undefined,
    onEndpoint: ({ endpoint }) =>
      routes.push({
        pattern: new RegExp(`^${endpoint.path.split("/").map(segmentPattern).join("/")}$`),
        method: endpoint.method
      })
  })
  return (path) => [...new Set(routes.filter((route) => route.pattern.test(path)).map((route) => route.method))]
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
