/**
 * The access log (issue 35, item 5): one line per answer, `GET /v2/teams/te-… 200 3.1 ms`, with the request's id. The
 * probes an orchestrator and a scraper send every few seconds (`/health`, `/ready`, `/metrics`) are `debug`, so they do
 * not bury the requests people make; everything else is `info`. The path is logged without its query, which may carry
 * an invite's token. The fields (`http.method`, `http.route`, `http.path`, `http.status`, `http.duration_ms`) are for
 * machines: a JSON log carries them, a readable line says them in its message.
 */
import { Context, Effect } from "effect"
import type { HttpServerRequest, HttpServerResponse } from "effect/http"
import { requestIdHeader } from "./ErrorEnvelope.ts"

/** Whether answers are logged (`ServerOptions.logRequests`; tests turn it off). */
export class AccessLog extends Context.Reference<boolean>("@svc/adapters/http/server/AccessLog", {
  defaultValue: () => true
}) {}

/** The paths asked by probes and scrapers, logged at `debug`. */
export const probePaths: ReadonlySet<string> = new Set(["/health", "/ready", "/metrics"])

/** Logs one answer: `route` is its template (for dashboards), `seconds` how long it took. */
export const logAnswer = (
  request: HttpServerRequest.HttpServerRequest,
  response: HttpServerResponse.HttpServerResponse,
  route: string,
  seconds: number
) => {
  const path = request.url.split("?")[0] ?? ""
  const millis = Math.round(seconds * 10_000) / 10
  const line = `${request.method} ${path} ${response.status} ${millis} ms`
  return (probePaths.has(path) ? Effect.logDebug(line) : Effect.logInfo(line)).pipe(
    Effect.annotateLogs({
      request_id: response.headers[requestIdHeader] ?? "",
      "http.method": request.method,
      "http.route": route,
      "http.path": path,
      "http.status": response.status,
      "http.duration_ms": millis
    })
  )
}
