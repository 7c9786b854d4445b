/**
 * `translate`: v1 request lines in, v2 request lines out (JSON lines, DESIGN §5b). Each input line
 * `{method, path, query?, body?}` answers one output line: `{line, v1, v2: [{method, path, query?, body?}]}` with the
 * ids mapped through the id map, or `{line, v1, error}` with the reason it has no v2 form.
 *
 * A v1 payment that still has to be signed becomes `POST /v2/payments` then `PUT /v2/payments`; the PUT's parts only
 * known after the POST are written as placeholders: `"$0.data.typed_data"` (the POST's answer) and `"$signature"`
 * (the wallet's EIP-712 signature of it). A v1 payment sent with `request` and `signature` is the PUT alone.
 */
import { createInterface } from "node:readline"
import type { Readable, Writable } from "node:stream"
import { ExecuteManagerInvitesRequest } from "@svc/domain/invite"
import type { V1IdMap } from "@svc/domain/migration"
import { CreatePaymentsRequest, ExecutePaymentsRequest } from "@svc/domain/payment"
import {
  balanceQuery,
  currentMapResolver,
  findV1Route as findRoute,
  invitesCreation,
  invitesQuery,
  memberPath,
  paymentsQuery,
  paymentTranslation,
  siweChallenge,
  siweVerify,
  teamPath,
  Untranslatable,
  type V1IdResolver
} from "@svc/v1"
import { Effect, Option, Schema } from "effect"

/** A v1 request as `translate` reads it. */
export interface V1Request {
  readonly method: string
  readonly path: string
  readonly query?: Record<string, string | ReadonlyArray<string>> | undefined
  readonly body?: unknown
}

/** A v2 request as `translate` writes it: the v2 API's own JSON. */
export interface V2Request {
  readonly method: string
  readonly path: string
  readonly query?: Record<string, unknown>
  readonly body?: unknown
}

/** The query of `path`'s query string merged under `query` (repeated keys become lists). */
export const queryOf = (path: string, query: V1Request["query"]): Record<string, string | ReadonlyArray<string>> => {
  const merged: Record<string, string | Array<string>> = {}
  const search = new URLSearchParams(path.includes("?") ? path.slice(path.indexOf("?") + 1) : "")
  for (const key of new Set(search.keys())) {
    const values = search.getAll(key)
    merged[key] = values.length === 1 ? (values[0] as string) : values
  }
  return { ...merged, ...query }
}

const encode = <S extends Schema.Top & { readonly EncodingServices: never }>(schema: S, value: S["Type"]) =>
  Schema.encodeSync(schema as never)(value as never) as unknown

const signatureStep = "$signature"
const issuedStep = "$0.data.typed_data"

/** The v2 requests `request` becomes, with `resolver` mapping its ids. */
export const v2RequestsOf = (
  resolver: V1IdResolver,
  request: V1Request
): Effect.Effect<ReadonlyArray<V2Request>, Untranslatable> =>
  Effect.gen(function* () {
    const found = findRoute(request.method, request.path)
    if (Option.isNone(found))
      return yield* Effect.fail(
        new Untranslatable({
          reason: `${request.method.toUpperCase()} ${request.path.split("?")[0]} has no v2 equivalent`,
          status: 404
        })
      )
    const { route, params } = found.value
    const query = queryOf(request.path, request.query)
    // biome-ignore lint/suspicious/noExplicitAny: v1 bodies are checked field by field by V1Translation
    const body = (request.body ?? {}) as any
    const team = params.team_nanoid ?? ""
    switch (`${route.v1.method} ${route.v1.path}`) {
      case "GET /v1/api/siwe":
      case "GET /v1/auth/api/siwe":
        return [{ method: "GET", path: "/v2/auth/siwe", query: yield* siweChallenge(query) }]
      case "POST /v1/api/siwe":
      case "POST /v1/auth/api/siwe":
        return [{ method: "POST", path: "/v2/auth/verify", body: yield* siweVerify(body) }]
      case "GET /v1/teams":
        return [{ method: "GET", path: "/v2/user/teams" }]
      case "GET /v1/teams/{teamId}/talent": {
        const path = yield* teamPath(resolver, team)
        return [{ method: "GET", path: `/v2/teams/${path.team_nanoid}/users` }]
      }
      case "GET /v1/teams/{teamId}/talent/{talentId}": {
        const path = yield* memberPath(resolver, team, params.user_nanoid ?? "")
        return [{ method: "GET", path: `/v2/teams/${path.team_nanoid}/member/${path.user_nanoid}/summary` }]
      }
      case "DELETE /v1/teams/{teamId}/talent/{talentId}": {
        const path = yield* memberPath(resolver, team, params.user_nanoid ?? "")
        return [{ method: "DELETE", path: `/v2/teams/${path.team_nanoid}/member/${path.user_nanoid}` }]
      }
      case "GET /v1/payments":
        return [{ method: "GET", path: "/v2/payments", query: yield* paymentsQuery(resolver, query) }]
      case "GET /v1/svcid/{svc_id}/balance":
      case "GET /v1/riseid/{rise_id}/balance":
        return [{ method: "GET", path: "/v2/balance", query: yield* balanceQuery(resolver, params.nanoid ?? "") }]
      case "GET /v1/invites":
        return [{ method: "GET", path: "/v2/invites", query: yield* invitesQuery(resolver, query) }]
      case "POST /v1/invites":
      case "POST /v1/invites/warmed": {
        const creation = yield* invitesCreation(resolver, body, route.v1.path.endsWith("warmed"))
        switch (creation._tag) {
          case "members":
            return [{ method: "POST", path: "/v2/invites", body: creation.request }]
          case "managersExecute":
            return [
              {
                method: "PUT",
                path: "/v2/invites/manager",
                body: encode(ExecuteManagerInvitesRequest, creation.request)
              }
            ]
          case "managers":
            return [
              { method: "POST", path: "/v2/invites/manager", body: creation.request },
              {
                method: "PUT",
                path: "/v2/invites/manager",
                body: {
                  invites: "$0.data.invites",
                  signer: "<admin wallet>",
                  typed_data: issuedStep,
                  signature: signatureStep
                }
              }
            ]
        }
        break
      }
      default: {
        // Every payment row: batch-pay, pay and intents, either verb.
        const payment = yield* paymentTranslation(resolver, body, { intents: route.v1.path.includes("intents") })
        if (payment.execute !== undefined)
          return [{ method: "PUT", path: "/v2/payments", body: encode(ExecutePaymentsRequest, payment.execute) }]
        const create = encode(CreatePaymentsRequest, payment.create) as Record<string, unknown>
        return [
          { method: "POST", path: "/v2/payments", body: create },
          {
            method: "PUT",
            path: "/v2/payments",
            body: { ...create, signer: payment.signer, typed_data: issuedStep, signature: signatureStep }
          }
        ]
      }
    }
    return yield* Effect.die(new Error(`unhandled route ${route.v1.path}`))
  })

/** One output line of `translate`. */
export type TranslationLine =
  | {
      readonly line: number
      readonly v1: { readonly method: string; readonly path: string }
      readonly v2: ReadonlyArray<V2Request>
    }
  | { readonly line: number; readonly v1?: { readonly method: string; readonly path: string }; readonly error: string }

/** Translates one input line (its text and 1-based number) with `resolver`. */
export const translateLine = (resolver: V1IdResolver, text: string, line: number): Effect.Effect<TranslationLine> =>
  Effect.gen(function* () {
    // biome-ignore lint/suspicious/noExplicitAny: the line is checked just below
    let parsed: any
    try {
      parsed = JSON.parse(text)
    } catch {
      return { line, error: "Not a JSON object" }
    }
    if (typeof parsed?.method !== "string" || typeof parsed?.path !== "string")
      return { line, error: "A v1 request line needs `method` and `path`" }
    const v1 = { method: parsed.method.toUpperCase(), path: parsed.path as string }
    return yield* v2RequestsOf(resolver, parsed as V1Request).pipe(
      Effect.map((v2): TranslationLine => ({ line, v1, v2 })),
      Effect.catchTag("Untranslatable", (error) => Effect.succeed<TranslationLine>({ line, v1, error: error.reason }))
    )
  })

/**
 * Reads v1 request lines from `input` and writes one translation line per non-blank input line to `output`;
 * answers how many were translated and how many were refused.
 */
export const translateStream = (input: Readable, output: Writable) =>
  Effect.gen(function* () {
    const resolver = yield* currentMapResolver
    const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY })[Symbol.asyncIterator]()
    let number = 0
    let translated = 0
    let refused = 0
    for (;;) {
      const next = yield* Effect.promise(() => lines.next())
      if (next.done === true) break
      number++
      if (next.value.trim() === "") continue
      const result = yield* translateLine(resolver, next.value, number)
      if ("error" in result) refused++
      else translated++
      if (!output.write(`${JSON.stringify(result)}\n`))
        yield* Effect.callback<void>((resume) => void output.once("drain", () => resume(Effect.void)))
    }
    return { translated, refused }
  }) satisfies Effect.Effect<unknown, never, V1IdMap>
