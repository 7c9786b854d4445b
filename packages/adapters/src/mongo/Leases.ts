/**
 * Leases on MongoDB documents: the one mechanism behind every claim of this adapter (issued requests being executed,
 * due intents, outbox events, idempotency keys, webhook deliveries, mails, the deposit follower, relayer keys, the
 * pruning worker). A leased document has `lease_token` (its fencing token: how many times it was taken, decision 0090)
 * and `lease_until` (epoch ms; the lease holds while `now < lease_until`, domain `Lease`). A document is taken with
 * one conditional `findOneAndUpdate` when it is free (its lease lapsed, and whatever else the caller's filter
 * requires), its token raised by one and read back in the same write; later writes, the renewal and the release
 * filter on that token, so a holder whose lease was taken over changes nothing, however long it was paused.
 *
 * Each is one single-document write, atomic on the primary and acknowledged by a majority (`MongoDatabase`), so a
 * lease taken survives an election: "the next free document" is one `findOneAndUpdate` in the caller's order.
 */
import { type FencingToken, fencingTokenOf, type Lease } from "@svc/domain/Lease"
import { Effect } from "effect"
import type { ClientSession, Collection, Document, Filter, Sort, UpdateFilter, WithId } from "mongodb"
import { type MongoFailure, tryMongo } from "./MongoErrors.ts"
import { sessionOption } from "./MongoTransaction.ts"

/** The lease fields of a leased document. */
export interface LeaseFields {
  lease_token?: number | undefined
  lease_until: number
}

/** The lease of a document taken until `until` (a document never taken reads as token 0). */
export const leaseOf = (doc: { readonly lease_token?: number | undefined }, until: number): Lease => ({
  token: fencingTokenOf(doc.lease_token ?? 0),
  until
})

/**
 * Applies `$set` to the document `filter` names by `_id` when it matches, or makes the document when there is none
 * (an empty database); true when it did either. A document that exists and does not match is left alone: the insert
 * the upsert tries is a duplicate, which answers false.
 */
export const setOrMake = <D extends Document>(
  collection: Collection<D>,
  filter: Filter<D> & { readonly _id: string },
  set: Document
): Effect.Effect<boolean, MongoFailure> =>
  tryMongo(() => collection.updateOne(filter, { $set: set } as UpdateFilter<D>, { upsert: true })).pipe(
    Effect.map((result) => result.matchedCount + result.upsertedCount === 1),
    Effect.catchTag("DuplicateKey", () => Effect.succeed(false))
  )

/** The filter of documents whose lease lapsed at `now`. */
export const lapsed = (now: number) => ({ lease_until: { $lte: now } })

/** How a lease is taken: when it lapsed, until when, with what else set. */
export interface TakeOptions {
  readonly now: number
  readonly until: number
  readonly set?: Document | undefined
  readonly session?: ClientSession | undefined
}

/** The lease operations on one collection. */
export const on = <D extends Document & LeaseFields>(collection: Collection<D>) => {
  const takeUpdate = (options: TakeOptions) =>
    ({ $set: { ...options.set, lease_until: options.until }, $inc: { lease_token: 1 } }) as unknown as UpdateFilter<D>
  /** Takes the first free document matching `filter` (in `sort` order): it as taken, with its lease, or `null`. */
  const takeFirst = (
    filter: Filter<D>,
    options: TakeOptions & { readonly sort?: Sort | undefined }
  ): Effect.Effect<{ readonly doc: WithId<D>; readonly lease: Lease } | null, MongoFailure> =>
    tryMongo(() =>
      collection.findOneAndUpdate({ ...filter, ...lapsed(options.now) } as Filter<D>, takeUpdate(options), {
        ...(options.sort === undefined ? {} : { sort: options.sort }),
        returnDocument: "after",
        ...sessionOption(options.session)
      })
    ).pipe(Effect.map((doc) => (doc === null ? null : { doc, lease: leaseOf(doc as LeaseFields, options.until) })))
  return {
    /**
     * Takes the document matching `filter` if it is free at `now`: a new, larger token, `lease_until = until` and the
     * fields of `set`. Answers the lease, or `undefined` when it was not free.
     */
    take: (filter: Filter<D>, options: TakeOptions): Effect.Effect<Lease | undefined, MongoFailure> =>
      Effect.map(takeFirst(filter, options), (taken) => taken?.lease),

    /** Takes the first free document matching `filter` in `sort` order (as `take`): it and its lease, or `null`. */
    takeNext: (filter: Filter<D>, options: TakeOptions & { readonly sort: Sort }) => takeFirst(filter, options),

    /** Extends the lease of the document matching `filter` to `until` while `token` is its current token. */
    renew: (filter: Filter<D>, token: FencingToken, until: number): Effect.Effect<Lease | undefined, MongoFailure> =>
      tryMongo(() =>
        collection.updateOne(
          { ...filter, lease_token: token } as Filter<D>,
          { $set: { lease_until: until } } as unknown as UpdateFilter<D>
        )
      ).pipe(Effect.map(({ matchedCount }) => (matchedCount === 1 ? { token, until } : undefined))),

    /** Applies `update` to the document matching `filter` only while `token` is its current token: true when it applied. */
    whileHeld: (
      filter: Filter<D>,
      token: FencingToken,
      update: UpdateFilter<D>,
      session?: ClientSession | undefined
    ): Effect.Effect<boolean, MongoFailure> =>
      // Matched is enough: an update that leaves the document as it was still applied.
      tryMongo(() =>
        collection.updateOne({ ...filter, lease_token: token } as Filter<D>, update, sessionOption(session))
      ).pipe(Effect.map(({ matchedCount }) => matchedCount === 1)),

    /** Gives the document matching `filter` up for the holder of `token`: its lease lapses now, and `set` applies. */
    release: (
      filter: Filter<D>,
      token: FencingToken,
      set: Document = {},
      session?: ClientSession | undefined
    ): Effect.Effect<boolean, MongoFailure> =>
      tryMongo(() =>
        collection.updateOne(
          { ...filter, lease_token: token } as Filter<D>,
          { $set: { ...set, lease_until: 0 } } as unknown as UpdateFilter<D>,
          sessionOption(session)
        )
      ).pipe(Effect.map(({ matchedCount }) => matchedCount === 1))
  }
}

/** The lease operations on a collection of `D`. */
export type Leases<D extends Document & LeaseFields> = ReturnType<typeof on<D>>

/**
 * A lease whose document is made by its first taking (the follower's, a relayer key's, the pruning worker's): kept
 * when `held` is still its token (a renewal keeps the token), taken under a new token when free at `now` (made with
 * token 1 the first time); the lease, or `undefined` while another holds it.
 */
export const takeOrKeep = <D extends Document & LeaseFields & { _id: string }>(
  collection: Collection<D>,
  id: string,
  options: { readonly held: FencingToken | undefined; readonly now: number; readonly until: number }
): Effect.Effect<Lease | undefined, MongoFailure> =>
  Effect.gen(function* () {
    const leases = on(collection)
    const filter = { _id: id } as Filter<D>
    if (options.held !== undefined) {
      const kept = yield* leases.renew(filter, options.held, options.until)
      if (kept !== undefined) return kept
    }
    const taken = yield* leases.take(filter, options)
    if (taken !== undefined) return taken
    // None yet: made free, then taken (two takers making it meet the unique `_id`; one takes it).
    const made = yield* setOrMake(collection, { _id: id, ...lapsed(options.now) } as never, { lease_until: 0 })
    return made ? yield* leases.take(filter, options) : undefined
  })
