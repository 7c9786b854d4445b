/**
 * v1 calls carried out on v2 (DESIGN §5b): the v1 routes (paths, verbs, shapes of reference/rise-api.md with
 * `rise` -> `svc`, errors `{message}`) answered through the typed client derived from the HttpApi contract, with ids
 * mapped both ways through the id map, which is the only state. The migration tool's proxy serves it over its own
 * HTTP server onto a v2 URL; the API serves it in-process on `/v1` (decision 0074), its client dispatching into the
 * API's own routes.
 *
 * - Sign-in: v1's SIWE (`/v1/auth/api/siwe` and `/v1/api/siwe`) is v2's; the v1 token is the v2 JWT.
 * - Payments: `PUT /v1/payments/batch-pay` (and `pay`, and `intents` without a signature) answers typed data for
 *   `eth_signTypedData_v4` (`data.message` is the request); sending it back as `request` with `signature` (v1's
 *   `POST`) executes it, once: v2 spends the salt.
 */
import { type ApiClient, makeApiClient } from "@svc/contract"
import type { V1IdMap } from "@svc/domain/migration"
import { Effect, type Layer, Option } from "effect"
import type { HttpClient } from "effect/http"
import { fromV2Failure, type V1Answer, v1Error } from "./V1Answer.ts"
import { type V1Local, v1Handlers } from "./V1Handlers.ts"
import { makeV1Ids } from "./V1Ids.ts"
import { translate as findRoute } from "./V1Routes.ts"

/** Keeps the clients of recent tokens: building one per call would cost more than the call. */
export const clientsFor = (target: string, httpClient: Layer.Layer<HttpClient.HttpClient>) => {
  const clients = new Map<string, ApiClient>()
  return (token: string | undefined) =>
    Effect.gen(function* () {
      const key = token ?? ""
      const cached = clients.get(key)
      if (cached !== undefined) return cached
      const client = yield* makeApiClient({ baseUrl: target, token, httpClient })
      if (clients.size >= 1000) clients.delete(clients.keys().next().value as string)
      clients.set(key, client)
      return client
    })
}

/** A URL's query as v1's handlers read it: one value, or every value of a repeated key. */
const queryOf = (url: URL) => {
  const query: Record<string, string | Array<string>> = {}
  for (const key of new Set(url.searchParams.keys())) {
    const values = url.searchParams.getAll(key)
    query[key] = values.length === 1 ? (values[0] as string) : values
  }
  return query
}

/** What a v1 call answers, and the v1 route it matched (`METHOD /v1/path/{param}`; none when it matched none). */
export interface V1Result {
  readonly route: string | undefined
  readonly answer: V1Answer
}

/**
 * Handles v1 calls: `(method, url, body, client, token)` answers the v1 answer and the route it matched, carried out
 * by `client` as the caller `token` names, or by `local` where it answers. Every failure is answered as v1's error.
 */
export const makeV1Handler = (stored: V1IdMap["Service"], local?: V1Local) => {
  const ids = makeV1Ids(stored)
  return (method: string, url: URL, body: unknown, client: ApiClient, token: string | undefined) =>
    Effect.gen(function* () {
      const found = findRoute(method, url.pathname)
      const handler = Option.isSome(found)
        ? v1Handlers[`${found.value.route.v1.method} ${found.value.route.v1.path}`]
        : undefined
      if (Option.isNone(found) || handler === undefined)
        return {
          route: undefined,
          answer: v1Error(404, `${method} ${url.pathname} has no v2 equivalent: see SPEC §9.6 for what v2 serves`)
        } satisfies V1Result
      const { route, params } = found.value
      const operation = `${route.v1.method} ${route.v1.path}`
      const call = {
        method: route.v1.method,
        route: route.v1.path,
        params,
        query: queryOf(url),
        body,
        client,
        token,
        resolver: ids.resolverFor(client),
        ids,
        local
      }
      const answer = yield* handler(call).pipe(
        Effect.catch((error) => Effect.succeed(fromV2Failure(operation, error))),
        Effect.catchDefect((defect) =>
          Effect.succeed(v1Error(502, `${operation}: the v2 API could not be reached (${String(defect)})`))
        )
      )
      return { route: operation, answer } satisfies V1Result
    })
}
