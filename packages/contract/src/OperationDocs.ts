/**
 * What OpenAPI says about an operation beyond its schemas: the errors it really answers, with their codes, and the
 * ranges of integer query parameters (which travel as strings, so their schemas alone show no range).
 */
import { ErrorCatalog, type ErrorCode } from "@svc/domain/errors"
import { Context } from "effect"
import { OpenApi } from "effect/http-api"

type Operation = Record<string, unknown>

interface Parameter {
  readonly name: string
  readonly in: string
}

/** What these helpers need of an endpoint (`HttpApiEndpoint.Top` is too narrow for endpoints without params). */
interface Endpoint {
  readonly method: string
  readonly annotations: Context.Context<never>
  readonly annotate: (key: typeof OpenApi.Transform, value: (operation: Operation) => Operation) => unknown
}

/** Applies `f` to the endpoint's OpenAPI operation after any transform it already has (one annotation per key). */
const transformOperation = <E extends Endpoint>(endpoint: E, f: (operation: Operation) => Operation): E => {
  const before = Context.getOption(endpoint.annotations, OpenApi.Transform)
  const composed = before._tag === "Some" ? (operation: Operation) => f(before.value(operation)) : f
  return endpoint.annotate(OpenApi.Transform, composed) as E
}

/** What executing signed typed data may answer (a payments batch or manager role grants), but for the caller's access. */
export const signedRequestCodes = [
  "TYPED_DATA_NOT_FOUND",
  "TYPED_DATA_MISMATCH",
  "EXPIRED_TYPED_DATA",
  "INVALID_SIGNATURE",
  "ALREADY_EXECUTED",
  "EXECUTION_IN_PROGRESS",
  "INSUFFICIENT_PERMISSIONS",
  "INSUFFICIENT_BALANCE",
  "NOT_FOUND",
  "NOT_IMPLEMENTED"
] as const satisfies ReadonlyArray<ErrorCode>

/** An integer query parameter's range (and default), as OpenAPI shows it. */
export interface IntegerRange {
  readonly minimum: number
  readonly maximum: number
  readonly default?: number
}

/**
 * Documents integer query parameters as integers with their range: the schema that decodes them reads a string, so
 * the generated document would only say "a numeric string". The decoding schema enforces the same bounds.
 */
export const integerQuery =
  (ranges: Record<string, IntegerRange>) =>
  <E extends Endpoint>(endpoint: E): E =>
    transformOperation(endpoint, (operation) => ({
      ...operation,
      parameters: ((operation.parameters ?? []) as ReadonlyArray<Parameter>).map((parameter) => {
        const range = parameter.in === "query" ? ranges[parameter.name] : undefined
        return range === undefined ? parameter : { ...parameter, schema: { type: "integer", ...range } }
      })
    }))

/** What an operation answers besides its own codes, from what it takes and what it touches. */
export interface AnswersOptions {
  /** It reads or writes storage or the chain, so an outage answers 503 (default true). */
  readonly dependencies?: boolean
  /** It is rate limited, so it may answer 429 (default true; `/health` and `/ready` are not). */
  readonly rateLimited?: boolean
  /** Error statuses the endpoint documents itself, kept as they are (`/ready`'s 503 with its checks). */
  readonly keep?: ReadonlyArray<number>
}

const transportCodes = {
  path: ["INVALID_ID"],
  query: ["VALIDATION_ERROR"],
  body: ["VALIDATION_ERROR", "INVALID_JSON", "PAYLOAD_TOO_LARGE", "UNSUPPORTED_MEDIA_TYPE"],
  bearer: ["UNAUTHORIZED", "JWT_EXPIRED"],
  idempotent: ["IDEMPOTENCY_IN_PROGRESS", "IDEMPOTENCY_KEY_REUSED"],
  // Node answers these before any route: a request it cannot parse, headers over 16 KiB, headers too slow to arrive.
  everywhere: ["MALFORMED_REQUEST", "HEADERS_TOO_LARGE", "REQUEST_TIMEOUT", "INTERNAL_ERROR"],
  rateLimited: ["RATE_LIMITED"],
  dependencies: ["SERVICE_UNAVAILABLE"]
} as const satisfies Record<string, ReadonlyArray<ErrorCode>>

const retryAfter = {
  "retry-after": { description: "Seconds to wait before trying again", schema: { type: "integer", minimum: 0 } }
}

/** The OpenAPI response for one status: the envelope, its `error_code` limited to `codes`, each listed with its meaning. */
const errorResponse = (codes: ReadonlyArray<ErrorCode>) => ({
  description: codes.map((code) => `\`${code}\`: ${ErrorCatalog[code].message}`).join("; "),
  ...(codes.includes("RATE_LIMITED") || codes.includes("SERVICE_UNAVAILABLE") ? { headers: retryAfter } : {}),
  content: {
    "application/json": {
      schema: {
        type: "object",
        properties: {
          success: { type: "boolean", enum: [false] },
          data: { type: "string", description: "What went wrong, for people" },
          error_code: { type: "string", enum: codes },
          request_id: {
            type: "string",
            description:
              "Beyond the spec: the request's id, as in the `x-request-id` header (the caller's own when well formed)"
          }
        },
        required: ["success", "data", "error_code"],
        additionalProperties: false
      }
    }
  }
})

/**
 * The error responses an operation documents: exactly the statuses it can answer, each with the `error_code`s it
 * may carry (an enum, and a list in the description). `codes` are the use case's own (its domain errors' codes);
 * those of the transport follow from the endpoint: a malformed path id (404 `INVALID_ID`), a bad query or body
 * (400, 413, 415), headers too slow to arrive (408), a missing or expired token (401), idempotency keys on POST, PUT and DELETE (409, 422), the rate
 * limit (429), an outage of storage or the chain (503) and our own failure (500).
 */
export const answers =
  (codes: ReadonlyArray<ErrorCode>, options: AnswersOptions = {}) =>
  <E extends Endpoint>(endpoint: E): E => {
    const idempotent = ["POST", "PUT", "DELETE"].includes(endpoint.method)
    const document = (operation: Operation): Operation => {
      const parameters = (operation.parameters ?? []) as ReadonlyArray<Parameter>
      const all = new Set<ErrorCode>([
        ...(parameters.some((p) => p.in === "path") ? transportCodes.path : []),
        ...(parameters.some((p) => p.in === "query") ? transportCodes.query : []),
        ...(operation.requestBody !== undefined ? transportCodes.body : []),
        ...(((operation.security ?? []) as ReadonlyArray<unknown>).length > 0 ? transportCodes.bearer : []),
        ...(idempotent ? transportCodes.idempotent : []),
        ...codes,
        ...transportCodes.everywhere,
        ...(options.rateLimited === false ? [] : transportCodes.rateLimited),
        ...(options.dependencies === false ? [] : transportCodes.dependencies)
      ])
      const byStatus = new Map<number, Array<ErrorCode>>()
      for (const code of all) {
        const status = ErrorCatalog[code].status
        byStatus.set(status, [...(byStatus.get(status) ?? []), code])
      }
      const responses: Record<string, unknown> = {}
      for (const [status, response] of Object.entries((operation.responses ?? {}) as Record<string, unknown>)) {
        if (Number(status) < 400 || options.keep?.includes(Number(status)) === true) responses[status] = response
      }
      for (const status of [...byStatus.keys()].sort((a, b) => a - b)) {
        if (responses[String(status)] === undefined)
          responses[String(status)] = errorResponse(byStatus.get(status) ?? [])
      }
      return { ...operation, responses }
    }
    return transformOperation(endpoint, document)
  }
