/**
 * Every operation of the API as a promise, derived from the Effect client of the HTTP contract (so it cannot drift
 * from the server), grouped by resource.
 */
import type { ApiClient } from "@svc/contract"
import type { Effect } from "effect"
import type { HttpClientResponse } from "effect/http"
import { run, SvcError } from "./Run.ts"

/**
 * An operation answering a `Promise` of its decoded success. (The Effect client's methods are generic in a response
 * mode; read through `infer`, their answer is every mode's, so the raw-response forms are taken out.)
 */
type PromisedOperation<F> = F extends (request: infer P) => Effect.Effect<infer A, infer _E, infer _R>
  ? (
      ...request: {} extends Omit<P, "responseMode">
        ? [request?: Omit<P, "responseMode">]
        : [request: Omit<P, "responseMode">]
    ) => Promise<Exclude<A, Response | readonly [unknown, Response]>>
  : never

type Response = HttpClientResponse.HttpClientResponse

/** The promise form of an Effect client: each group's operations, and the top-level ones (`health`, `ready`). */
export type Promised<C> = {
  readonly [K in keyof C]: C[K] extends (...args: ReadonlyArray<never>) => unknown
    ? PromisedOperation<C[K]>
    : { readonly [O in keyof C[K]]: PromisedOperation<C[K][O]> }
}

/** Every operation of the API, grouped by resource (`teams`, `payments`, `invites`, `webhooks`, ...). */
export type SvcOperations = Promised<ApiClient>

type Operation = (...args: Array<unknown>) => Effect.Effect<unknown>

/**
 * An operation as a promise. A 401 (a token the server no longer takes: it expired early, or the server's secret
 * changed) forgets the token and tries once more, signed in again.
 */
const promisedOperation =
  (operation: Operation, forgetToken: (() => void) | undefined) =>
  async (...args: Array<unknown>) => {
    try {
      return await run(operation(...args))
    } catch (error) {
      if (forgetToken === undefined || !(error instanceof SvcError) || error.status !== 401) throw error
      forgetToken()
      return run(operation(...args))
    }
  }

/**
 * Each group's operations as promises (`operations.teams.get(...)`), and the top-level ones, over `client`; the
 * sign-in operations themselves are not retried.
 */
export const promised = <C extends object>(client: C, forgetToken: () => void): Promised<C> =>
  Object.fromEntries(
    Object.entries(client).map(([key, value]) => [
      key,
      typeof value === "function"
        ? promisedOperation(value as Operation, forgetToken)
        : Object.fromEntries(
            Object.entries(value as Record<string, Operation>).map(([name, operation]) => [
              name,
              promisedOperation(operation, key === "auth" ? undefined : forgetToken)
            ])
          )
    ])
  ) as Promised<C>
