/**
 * Leases on MongoDB documents: the one mechanism behind every claim of this adapter (issued requests being executed,
 * due intents, outbox events, idempotency keys; webhook deliveries and invites reuse it). A leased document has the
 * fields `lease_holder` (a random token naming one taking of it) and `lease_until` (epoch ms; the lease holds while
 * `now < lease_until`, domain `Lease`). A document is taken with one conditional `updateOne` when it is free (its
 * lease lapsed, and whatever else the caller's filter requires), under a fresh holder token; later writes and the
 * release filter on that token, so a holder whose lease was taken over changes nothing.
 *
 * Only `updateOne` decides who wins: jongodb applies a conditional `updateOne` atomically, its conditional
 * `findOneAndUpdate` not (docs/decisions/0017). Taking "the next free document" therefore reads candidates, then
 * takes one by id with a conditional `updateOne`, then reads it.
 */
import { randomUUID } from "node:crypto"
import type { Lease } from "@svc/domain/Lease"
import type { ClientSession, Collection, Document, Filter, Sort, UpdateFilter } from "mongodb"

/** The lease fields of a leased document. */
export interface LeaseFields {
  lease_holder?: string | undefined
  lease_until: number
}

/** A fresh holder token. */
export const newHolder = (): string => randomUUID()

/**
 * Applies `$set` to the document `filter` names by `_id` when it matches, or makes the document when there is none
 * (an empty database, say a jongodb started again); true when it did either. A document that exists and does not
 * match is left alone: the insert the upsert tries is a duplicate, which answers false. For rows taken with a
 * conditional `updateOne`, which jongodb applies atomically (decision 0017).
 */
export const setOrMake = async <D extends Document>(
  collection: Collection<D>,
  filter: Filter<D> & { readonly _id: string },
  set: Document
): Promise<boolean> =>
  collection.updateOne(filter, { $set: set } as UpdateFilter<D>, { upsert: true }).then(
    (result) => result.matchedCount + result.upsertedCount === 1,
    (error: unknown) => {
      if (error instanceof Error && /E11000|duplicate key/.test(error.message)) return false
      throw error
    }
  )

/** The filter of documents whose lease lapsed at `now`. */
export const lapsed = (now: number) => ({ lease_until: { $lte: now } })

/** The lease operations on one collection. */
export const on = <D extends Document & LeaseFields>(collection: Collection<D>) => {
  const takeWhere = async (
    filter: Filter<D>,
    options: {
      readonly now: number
      readonly until: number
      readonly holder?: string | undefined
      readonly set?: Document | undefined
      readonly session?: ClientSession | undefined
    }
  ): Promise<Lease | undefined> => {
    const holder = options.holder ?? newHolder()
    const { modifiedCount } = await collection.updateOne(
      { ...filter, ...lapsed(options.now) } as Filter<D>,
      { $set: { ...options.set, lease_holder: holder, lease_until: options.until } } as UpdateFilter<D>,
      options.session === undefined ? {} : { session: options.session }
    )
    return modifiedCount === 1 ? { holder, until: options.until } : undefined
  }
  return {
    /**
     * Takes the document matching `filter` if it is free at `now`: a new holder (`holder` if given, else a fresh
     * token), `lease_until = until` and the fields of `set`. Answers the lease, or `undefined` when it was not free.
     */
    take: takeWhere,

    /**
     * Takes the first free document matching `filter` in `sort` order (as `take`), trying a few candidates should
     * others take them first; answers it as taken, or `null` when none is free.
     */
    takeNext: async (
      filter: Filter<D>,
      options: {
        readonly sort: Sort
        readonly now: number
        readonly until: number
        readonly holder?: string | undefined
        readonly set?: Document | undefined
      }
    ) => {
      const candidates = await collection
        .find({ ...filter, ...lapsed(options.now) } as Filter<D>, { projection: { _id: 1 } })
        .sort(options.sort)
        .limit(20)
        .toArray()
      for (const candidate of candidates) {
        const taken = await takeWhere({ ...filter, _id: candidate._id } as Filter<D>, options)
        if (taken !== undefined) return collection.findOne({ _id: candidate._id } as Filter<D>)
      }
      return null
    },

    /** Applies `update` to the document matching `filter` only while `holder` holds it: true when it applied. */
    whileHeld: async (
      filter: Filter<D>,
      holder: string,
      update: UpdateFilter<D>,
      session?: ClientSession | undefined
    ) => {
      // Matched is enough: an update that leaves the document as it was still applied.
      const { matchedCount } = await collection.updateOne(
        { ...filter, lease_holder: holder } as Filter<D>,
        update,
        session === undefined ? {} : { session }
      )
      return matchedCount === 1
    },

    /** Gives the document matching `filter` up for its holder `holder`: clears the lease and sets `set`. */
    release: async (filter: Filter<D>, holder: string, set: Document = {}) => {
      const { modifiedCount } = await collection.updateOne(
        { ...filter, lease_holder: holder } as Filter<D>,
        { $set: { ...set, lease_until: 0 }, $unset: { lease_holder: "" } } as unknown as UpdateFilter<D>
      )
      return modifiedCount === 1
    }
  }
}
