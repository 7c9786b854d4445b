/**
 * What a v1 call answers (shapes of reference/rise-api.md with `rise` -> `svc`): `{data}` with 200, errors as
 * `{message}` with v2's status, and the headers every v1 answer carries.
 */
import { statusOfApiError } from "@svc/contract"
import { getTypesForEIP712Domain, type TypedDataDomain } from "viem"
import { Untranslatable } from "./V1Translation.ts"

/** A v1 answer: status and JSON body. */
export interface V1Answer {
  readonly status: number
  readonly body: unknown
}

export const ok = (data: unknown): V1Answer => ({ status: 200, body: { data } })
export const v1Error = (status: number, message: string): V1Answer => ({ status, body: { message } })

/** What a failure may carry: an API error's `data`, an HTTP client error's reason. */
interface Failure {
  readonly _tag?: unknown
  readonly data?: unknown
  readonly message?: unknown
  readonly reason?: { readonly _tag?: unknown } | undefined
}

/** A v2 failure as the v1 error it becomes: same status, `{message}`; 501 says v1 cannot have it from this v2. */
export const fromV2Failure = (operation: string, error: unknown): V1Answer => {
  if (error instanceof Untranslatable) return v1Error(error.status, error.reason)
  const failure = (typeof error === "object" && error !== null ? error : {}) as Failure
  const status = statusOfApiError(error)
  if (status === undefined && failure._tag === "HttpClientError" && failure.reason?._tag === "TransportError")
    return v1Error(502, `${operation}: the v2 API could not be reached`)
  if (status === undefined)
    return v1Error(502, `${operation}: the v2 API did not answer as expected (${String(failure.message ?? error)})`)
  if (status === 501) return v1Error(501, `${operation} is not available yet: the v2 API answered "${failure.data}"`)
  return v1Error(status, String(failure.data))
}

/** A typed-data bundle as v2 answers it. */
export interface V2Bundle {
  readonly domain: TypedDataDomain
  readonly types: Readonly<Record<string, unknown>>
  readonly primary_type: string
  readonly typed_data: unknown
}

/** The bundle as `eth_signTypedData_v4` takes it: `types` with `EIP712Domain`, `primaryType`, `message`. */
export const signable = (bundle: V2Bundle) => ({
  domain: bundle.domain,
  types: { EIP712Domain: getTypesForEIP712Domain({ domain: bundle.domain }), ...bundle.types },
  primaryType: bundle.primary_type,
  message: bundle.typed_data
})

/** The largest v1 request body read (1 MiB). */
export const maxV1Body = 1024 * 1024

/** What every v1 answer carries: `Deprecation` (and `Sunset` when configured) and the successor's docs. */
export const v1Headers = (options: {
  /** When v1 was deprecated (`Deprecation: @<unix seconds>`); `Deprecation: true` without it. */
  readonly deprecatedSince?: Date | undefined
  /** When v1 stops answering (`Sunset`, an HTTP date). */
  readonly sunset?: Date | undefined
  /** The v2 API's base URL. */
  readonly successor: string
}): Record<string, string> => ({
  deprecation:
    options.deprecatedSince === undefined ? "true" : `@${Math.floor(options.deprecatedSince.getTime() / 1000)}`,
  ...(options.sunset === undefined ? {} : { sunset: options.sunset.toUTCString() }),
  link: `<${options.successor.replace(/\/$/, "")}/docs>; rel="successor-version"`
})

/** v1 calls per route (`METHOD /v1/path/{param}`) since `since`, as `GET /v1/_stats` answers them. */
export const v1Stats = () => {
  const counts = new Map<string, number>()
  const since = new Date().toISOString()
  return {
    count: (route: string | undefined) => {
      const key = route ?? "unmatched"
      counts.set(key, (counts.get(key) ?? 0) + 1)
    },
    snapshot: () => Object.fromEntries(counts),
    answer: () => ok({ since, routes: Object.fromEntries(counts) })
  }
}
