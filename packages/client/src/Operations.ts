/**
 * Every operation of the API as a promise, typed from the HTTP contract (`@svc/contract`) so it cannot drift from the
 * server, in plain values (`Plain.ts`): a request takes plain strings where the contract brands its ids, and may
 * leave out every field that has a default; an answer holds plain strings.
 */
import type { Api } from "@svc/contract"
import type { Effect, Schema } from "effect"
import type { HttpApi, HttpApiClient, HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import type { Plain, PlainInput } from "./Plain.ts"
import { run, SvcError } from "./SvcError.ts"

type Groups = typeof Api extends HttpApi.HttpApi<infer _Id, infer G> ? G : never

/**
 * The schema an endpoint was declared with: the endpoint wraps it in a codec to JSON or to a string tree, whose wire
 * form says nothing of the fields.
 */
type Declared<S> = S extends Schema.toCodecJson<infer I> ? I : S extends Schema.toCodecStringTree<infer I> ? I : S

/** What a request part accepts for the schema it was declared with. */
type PartInput<S> = S extends Schema.Constraint ? PlainInput<S["Type"], S["Encoded"]> : never

/** One part of a request (`params`, `query` or `payload`): absent, optional when each of its fields is, or required. */
type Part<Key extends string, S extends Schema.Constraint> = [S["Type"]] extends [never]
  ? {}
  : {} extends PartInput<Declared<S>>
    ? { readonly [P in Key]?: PartInput<Declared<S>> }
    : { readonly [P in Key]: PartInput<Declared<S>> }

/** What an operation takes: its path `params`, `query` and `payload` (body), each as the contract names its fields. */
type RequestOf<E extends HttpApiEndpoint.ConstraintRequest> = Flat<
  Part<"params", E["~Params"]> & Part<"query", E["~Query"]> & Part<"payload", E["~Payload"]>
>

/** One object type of an intersection, as an editor shows it. */
type Flat<T> = { [K in keyof T]: T[K] } & {}

/** One operation: its request (none, or optional, when nothing in it is required), answering its success. */
export type SvcOperation<E extends HttpApiEndpoint.ConstraintRequest> = (
  ...request: {} extends RequestOf<E> ? [request?: RequestOf<E>] : [request: RequestOf<E>]
) => Promise<Plain<HttpApiClient.SuccessType<E["~Success"]>>>

type GroupOperations<G extends HttpApiGroup.Constraint> = G["endpoints"] extends infer Endpoints extends Readonly<
  Record<string, HttpApiEndpoint.ConstraintRequest>
>
  ? { readonly [O in keyof Endpoints]: SvcOperation<Endpoints[O]> }
  : never

/** Every operation of the API, grouped by resource (`teams`, `payments`, `invites`, `webhooks`, ...). */
export type SvcOperations = {
  readonly [G in Extract<Groups, { readonly topLevel: false }> as HttpApiGroup.Identifier<G>]: GroupOperations<G>
} & {
  readonly [E in Extract<
    HttpApiGroup.Endpoints<Extract<Groups, { readonly topLevel: true }>>,
    HttpApiEndpoint.ConstraintRequest
  > as E["identifier"]]: SvcOperation<E>
}

/** A resource of the API: `teams`, `payments`, `invites`, `webhooks`, `balance`, `deposits`, `auth`. */
export type SvcGroup = {
  [G in keyof SvcOperations]: SvcOperations[G] extends (...args: never) => unknown ? never : G
}[keyof SvcOperations]

/**
 * What operation `O` of resource `G` takes.
 *
 * @example
 * const body: SvcRequest<"webhooks", "create"> = { payload: { team_nanoid, url, events: ["payment.sent"], name: "ops" } }
 */
export type SvcRequest<G extends SvcGroup, O extends keyof SvcOperations[G]> = SvcOperations[G][O] extends (
  ...request: infer R
) => unknown
  ? NonNullable<R[0]>
  : never

/**
 * What operation `O` of resource `G` answers.
 *
 * @example
 * type Users = SvcResult<"teams", "users">["data"]["users"]
 */
export type SvcResult<G extends SvcGroup, O extends keyof SvcOperations[G]> = SvcOperations[G][O] extends (
  ...request: never
) => Promise<infer A>
  ? A
  : never

type EffectOperation = (request: object) => Effect.Effect<unknown, unknown>

/** The parts a request may hold: the HTTP client writes those its endpoint has, and wants each of them present. */
const parts = ["params", "query", "payload"] as const

/**
 * An operation as a promise. A part left out (a query whose fields are all optional) is sent empty. A 401 (a token the
 * server no longer takes: it expired early, or the server's secret changed) forgets the token and tries once more,
 * signed in again.
 */
const promisedOperation =
  (operation: EffectOperation, forgetToken: (() => void) | undefined) => async (request?: Record<string, unknown>) => {
    const complete = Object.fromEntries(parts.map((part) => [part, request?.[part] ?? {}]))
    try {
      return await run(operation(complete))
    } catch (error) {
      if (forgetToken === undefined || !(error instanceof SvcError) || error.status !== 401) throw error
      forgetToken()
      return run(operation(complete))
    }
  }

/**
 * Each group's operations as promises (`operations.teams.get(...)`), and the top-level ones, over the contract's
 * Effect client; the sign-in operations themselves are not retried.
 */
export const promised = (client: object, forgetToken: () => void): SvcOperations =>
  Object.fromEntries(
    Object.entries(client).map(([key, value]) => [
      key,
      typeof value === "function"
        ? promisedOperation(value as EffectOperation, forgetToken)
        : Object.fromEntries(
            Object.entries(value as Record<string, EffectOperation>).map(([name, operation]) => [
              name,
              promisedOperation(operation, key === "auth" ? undefined : forgetToken)
            ])
          )
    ])
  ) as unknown as SvcOperations
