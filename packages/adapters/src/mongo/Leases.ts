/**
 * Leases on MongoDB documents: the one mechanism behind every claim of this adapter (issued requests being executed,
 * due intents, outbox events, idempotency keys; webhook deliveries and invites reuse it). A leased document has the
 * fields `lease_holder` (a random token naming one taking of it) and `lease_until` (epoch ms; the lease holds while
 * `now < lease_until`, domain `Lease`). A document is taken with one conditional write when it is free (its lease
 * lapsed, and whatever else the caller's filter requires), under a fresh holder token; later writes and the release
 * filter on that token, so a holder whose lease was taken over changes nothing.
 *
 * Each is one single-document write, atomic on the primary and acknowledged by a majority (`MongoDatabase`), so a
 * lease taken survives an election: "the next free document" is one `findOneAndUpdate` in the caller's order.
 */
import { randomUUID } from "node:crypto"
import type { Lease } from "@svc/domain/Lease"
import { Effect } from "effect"
import type { ClientSession, Collection, Document, Filter, Sort, UpdateFilter, WithId } from "mongodb"
import { type MongoFailure, tryMongo } from "./MongoErrors.ts"
import { sessionOption } from "./MongoTransaction.ts"

/** The lease fields of a leased document. */
export interface LeaseFields {
  lease_holder?: string | undefined
  lease_until: number
}

/** A fresh holder token. */
export const newHolder = (): string => randomUUID()

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

/** How a lease is taken: when it lapsed, until when, by whom, with what else set. */
export interface TakeOptions {
  readonly now: number
  readonly until: number
  /** The holder token (a fresh one when absent). */
  readonly holder?: string | undefined
  readonly set?: Document | undefined
  readonly session?: ClientSession | undefined
}

/** The lease operations on one collection. */
export const on = <D extends Document & LeaseFields>(collection: Collection<D>) => {
  const takeUpdate = (holder: string, options: TakeOptions) =>
    ({ $set: { ...options.set, lease_holder: holder, lease_until: options.until } }) as UpdateFilter<D>
  return {
    /**
     * Takes the document matching `filter` if it is free at `now`: a new holder (`holder` if given, else a fresh
     * token), `lease_until = until` and the fields of `set`. Answers the lease, or `undefined` when it was not free.
     */
    take: (filter: Filter<D>, options: TakeOptions): Effect.Effect<Lease | undefined, MongoFailure> => {
      const holder = options.holder ?? newHolder()
      return tryMongo(() =>
        collection.updateOne(
          { ...filter, ...lapsed(options.now) } as Filter<D>,
          takeUpdate(holder, options),
          sessionOption(options.session)
        )
      ).pipe(Effect.map(({ modifiedCount }) => (modifiedCount === 1 ? { holder, until: options.until } : undefined)))
    },

    /** Takes the first free document matching `filter` in `sort` order (as `take`); answers it as taken, or `null`. */
    takeNext: (
      filter: Filter<D>,
      options: TakeOptions & { readonly sort: Sort }
    ): Effect.Effect<WithId<D> | null, MongoFailure> =>
      tryMongo(() =>
        collection.findOneAndUpdate(
          { ...filter, ...lapsed(options.now) } as Filter<D>,
          takeUpdate(options.holder ?? newHolder(), options),
          { sort: options.sort, returnDocument: "after", ...sessionOption(options.session) }
        )
      ),

    /** Applies `update` to the document matching `filter` only while `holder` holds it: true when it applied. */
    whileHeld: (
      filter: Filter<D>,
      holder: string,
      update: UpdateFilter<D>,
      session?: ClientSession | undefined
    ): Effect.Effect<boolean, MongoFailure> =>
      // Matched is enough: an update that leaves the document as it was still applied.
      tryMongo(() =>
        collection.updateOne({ ...filter, lease_holder: holder } as Filter<D>, update, sessionOption(session))
      ).pipe(Effect.map(({ matchedCount }) => matchedCount === 1)),

    /** Gives the document matching `filter` up for its holder `holder`: clears the lease and sets `set`. */
    release: (filter: Filter<D>, holder: string, set: Document = {}): Effect.Effect<boolean, MongoFailure> =>
      tryMongo(() =>
        collection.updateOne(
          { ...filter, lease_holder: holder } as Filter<D>,
          { $set: { ...set, lease_until: 0 }, $unset: { lease_holder: "" } } as unknown as UpdateFilter<D>
        )
      ).pipe(Effect.map(({ modifiedCount }) => modifiedCount === 1))
  }
}

/** The lease operations on a collection of `D`. */
export type Leases<D extends Document & LeaseFields> = ReturnType<typeof on<D>>
