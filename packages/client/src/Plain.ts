/**
 * The API's values as an integrator writes and reads them (issue 35, item 1): the domain brands its ids, e-mails and
 * wallets so that its own code cannot mix them up, but an integrator's ids come from JSON, environment variables and
 * earlier answers, as plain strings. The client takes plain strings, checks them at run time (a malformed one is an
 * `SvcError` of code `VALIDATION_ERROR`, nothing sent), and answers plain strings.
 */
/** What every value of a brand carries (`Brand.Brand`'s key, a string; the interface itself is invariant). */
type Branded = { readonly "~effect/Brand": unknown }

/** A value kept as it is: not a record of fields. */
type Opaque = Date | Uint8Array | ((...args: ReadonlyArray<never>) => unknown)

/**
 * `T` without brands: a branded id or e-mail is a `string`, a branded wallet a `0x${string}` (as viem types it).
 *
 * @example
 * type Id = Plain<TeamId> // string
 */
export type Plain<T> = T extends Branded
  ? T extends `0x${string}`
    ? `0x${string}`
    : T extends string
      ? string
      : T extends number
        ? number
        : T
  : T extends Opaque
    ? T
    : T extends object
      ? { [K in keyof T]: Plain<T[K]> }
      : T

/** Whether key `K` of `T` may be left out: it is optional in the value, or on the wire (a field with a default). */
type MayOmit<T, E, K extends PropertyKey> =
  {} extends Pick<T, K & keyof T>
    ? true
    : true extends (E extends unknown ? (K extends keyof E ? ({} extends Pick<E, K> ? true : false) : true) : never)
      ? true
      : false

/**
 * The members of wire form `E` that can carry value `T`: those with every key of `T` (a union of structs whose
 * members share their keys, such as a batch's and an instant payment's typed data, pairs each with its own).
 */
type Matching<T, E> = [E extends unknown ? (Exclude<keyof T, keyof E> extends never ? E : never) : never] extends [
  never
]
  ? E
  : E extends unknown
    ? Exclude<keyof T, keyof E> extends never
      ? E
      : never
    : never

/** The wire form of field `K` of `E` (a union of structs gives the union of its members' fields). */
type FieldOf<E, K extends PropertyKey> = E extends unknown ? (K extends keyof E ? E[K] : never) : never

/**
 * What a request accepts for a schema whose value is `T` and whose wire form is `E`: the value's shape (numbers for
 * numbers, even in a query string), with plain strings where the value is branded or refined, and every field with a
 * default optional.
 *
 * @example
 * type Body = PlainInput<CreateWebhookRequest, typeof CreateWebhookRequest.Encoded>
 * // { team_nanoid: string; url: string; events: ReadonlyArray<EventType>; name: string; description?: string; version?: number }
 */
export type PlainInput<T, E> = T extends string
  ? E extends string
    ? E
    : Plain<T>
  : T extends Opaque
    ? T
    : T extends ReadonlyArray<infer I>
      ? ReadonlyArray<PlainInput<I, E extends ReadonlyArray<infer W> ? W : never>>
      : T extends object
        ? InputFields<T, Matching<T, E>>
        : Plain<T>

/** The fields of a request object: those that may be left out optional. */
type InputFields<T, E> = Flat<
  { readonly [K in keyof T as MayOmit<T, E, K> extends true ? K : never]?: PlainInput<T[K], FieldOf<E, K>> } & {
    readonly [K in keyof T as MayOmit<T, E, K> extends true ? never : K]: PlainInput<T[K], FieldOf<E, K>>
  }
>

/** One object type of an intersection, as an editor shows it. */
type Flat<T> = { [K in keyof T]: T[K] } & {}
