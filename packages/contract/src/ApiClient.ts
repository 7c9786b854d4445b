/**
 * The typed client, derived from the same contract the server serves (the CLI and the tests use it).
 */
import { Effect, flow, type Layer } from "effect"
import { FetchHttpClient, HttpClient, HttpClientRequest } from "effect/http"
import { HttpApi, HttpApiClient } from "effect/http-api"
import { Api } from "./Api.ts"

/**
 * A client of the API at `baseUrl`, sending `token` as the bearer when given; over `fetch` unless another HTTP
 * client is given (a proxy in front of the API passes a pooled one). `transformResponse` wraps the reading of each
 * answer, so a caller can tell an answer it could not read from a request it could not send (`@svc/client`).
 */
export const makeApiClient = (options: {
  readonly baseUrl: string
  readonly token?: string | undefined
  readonly httpClient?: Layer.Layer<HttpClient.HttpClient> | undefined
  readonly transformResponse?:
    | ((effect: Effect.Effect<unknown, unknown, unknown>) => Effect.Effect<unknown, unknown, unknown>)
    | undefined
}) =>
  // The server skips re-checking its own answers; a client checks them (the default options, not the server's).
  HttpApiClient.make(Api.annotate(HttpApi.SuccessParseOptions, {}), {
    transformClient: HttpClient.mapRequest(
      flow(HttpClientRequest.prependUrl(options.baseUrl), (request) =>
        options.token === undefined ? request : HttpClientRequest.bearerToken(request, options.token)
      )
    ),
    transformResponse: options.transformResponse
  }).pipe(Effect.provide(options.httpClient ?? FetchHttpClient.layer))

/** The client's type. */
export type ApiClient = HttpApiClient.ForApi<typeof Api>
