/**
 * Request bodies are UTF-8 JSON, as sent (issue 18, item 8; issue 35): a request that declares another charset
 * (`Content-Type: application/json; charset=utf-16`) is refused 400 `VALIDATION_ERROR` before its body is read, rather
 * than decoded as UTF-8 into something the client did not send. No charset, or `utf-8`/`utf8` in any letter case, is
 * served. A body in a content coding (`Content-Encoding: gzip`, any but `identity`) is refused 415
 * `UNSUPPORTED_MEDIA_TYPE` (RFC 9110 §15.5.16): the server decodes none, and would otherwise read the compressed
 * bytes as JSON.
 */
import { Effect } from "effect"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import { errorResponse } from "./ErrorEnvelope.ts"

/** The `charset` parameter of a `Content-Type` value, lower case, without quotes; `undefined` when there is none. */
export const charsetOf = (contentType: string | undefined): string | undefined => {
  if (contentType === undefined) return undefined
  for (const parameter of contentType.split(";").slice(1)) {
    const [name, ...value] = parameter.split("=")
    if (name?.trim().toLowerCase() === "charset") return value.join("=").trim().replace(/^"|"$/g, "").toLowerCase()
  }
  return undefined
}

/** The content codings of a `Content-Encoding` value other than `identity`, lower case. */
export const codingsOf = (contentEncoding: string | undefined): Array<string> =>
  (contentEncoding ?? "")
    .split(",")
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== "" && coding !== "identity")

/** Refuses a request whose body is in a content coding, or whose declared charset is not UTF-8. */
export const withUtf8Bodies = <E, R>(app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    const codings = codingsOf(request.headers["content-encoding"])
    if (codings.length > 0) {
      // RFC 7694: Accept-Encoding on the answer names the codings a request body may have.
      return Effect.succeed(
        errorResponse(
          "UNSUPPORTED_MEDIA_TYPE",
          `Request bodies are JSON as sent; Content-Encoding: ${codings.join(", ").slice(0, 40)} is not accepted`
        ).pipe(HttpServerResponse.setHeader("accept-encoding", "identity"))
      )
    }
    const charset = charsetOf(request.headers["content-type"])
    return charset === undefined || charset === "utf-8" || charset === "utf8"
      ? app
      : Effect.succeed(
          errorResponse(
            "VALIDATION_ERROR",
            `Request bodies are UTF-8 JSON; charset=${charset.slice(0, 40)} is not accepted`
          )
        )
  })
