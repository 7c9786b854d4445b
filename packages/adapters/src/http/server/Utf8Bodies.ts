/**
 * Request bodies are UTF-8 JSON (issue 18, item 8): a request that declares another charset (`Content-Type:
 * application/json; charset=utf-16`) is refused 400 `VALIDATION_ERROR` before its body is read, rather than decoded as
 * UTF-8 into something the client did not send. No charset, or `utf-8`/`utf8` in any letter case, is served.
 */
import { Effect } from "effect"
import { HttpServerRequest, type HttpServerResponse } from "effect/http"
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

/** Refuses a request whose declared charset is not UTF-8. */
export const withUtf8Bodies = <E, R>(app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
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
