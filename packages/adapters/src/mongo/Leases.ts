/**
 * Leases on MongoDB documents: the one mechanism behind every claim of this adapter (issued requests being executed,
 * due intents, outbox events, idempotency keys, webhook deliveries, mails, the follower, relayer keys, the pruning
 * worker). A leased document has `lease_token` (its fencing token: how many times it was taken, decision 0090) and
 * `lease_until` (epoch ms; the lease holds while `now < lease_until`, domain `Lease`). A document is taken with one
 * conditional `updateOne` when it is free (its lease lapsed, and whatever else the caller's filter requires), its
 * token raised by one (`lease_holder` marks that taking, to read the new token back); later writes, the renewal and
 * the release filter on that token, so a holder whose lease was taken over changes nothing.
 *
 * Only `updateOne` decides who wins: jongodb applies a conditional `updateOne` atomically, its conditional
 * `findOneAndUpdate` not (docs/decisions/0017). Taking "the next free document" therefore reads candidates, then
 * takes one by id with a conditional `updateOne`, then reads it.
 */
import { randomUUID } from "node:crypto"
import { type FencingToken, fencingTokenOf, type Lease } from "@svc/domain/Lease"
import type { ClientSession, Collection, Document, Filter, Sort, UpdateFilter } from "mongodb"

/** The lease fields of a leased document. */
export interface LeaseFields {
  lease_holder?: string | undefined
  lease_token?: number | undefined
  lease_until: number
}

/** The lease of a document taken until `until` (a document never taken reads as token 0). */
export const leaseOf = (doc: { readonly lease_token?: number | undefined }, until: number): Lease => ({
  token: fencingTokenOf(doc.lease_token ?? 0),
  until
})

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
    const session = options.session === undefined ? {} : { session: options.session }
    const { modifiedCount } = await collection.updateOne(
      { ...filter, ...lapsed(options.now) } as Filter<D>,
      {
        $set: { ...options.set, lease_holder: holder, lease_until: options.until },
        $inc: { lease_token: 1 }
      } as unknown as UpdateFilter<D>,
      session
    )
    if (modifiedCount !== 1) return undefined
    // Read back by this taking's mark (unique): taken over since, it is no longer this holder's.
    const taken = await collection.findOne({ lease_holder: holder } as Filter<D>, session)
    return taken === null ? undefined : leaseOf(taken as LeaseFields, options.until)
  }
  return {
    /**
     * Takes the document matching `filter` if it is free at `now`: a new holder (`holder` if given, else a fresh
     * token), `lease_until = until` and the fields of `set`. Answers the lease, or `undefined` when it was not free.
     */
    take: takeWhere,

    /**
     * Takes the first free document matching `filter` in `sort` order (as `take`), trying a few candidates should
     * others take them first; answers it as taken with its lease, or `null` when none is free.
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
        const lease = await takeWhere({ ...filter, _id: candidate._id } as Filter<D>, options)
        if (lease === undefined) continue
        const doc = await collection.findOne({ _id: candidate._id, lease_token: lease.token } as Filter<D>)
        if (doc !== null) return { doc, lease }
      }
      return null
    },

    /** Extends the lease of the document matching `filter` to `until` while `token` is its current token. */
    renew: async (filter: Filter<D>, token: FencingToken, until: number): Promise<Lease | undefined> => {
      const { matchedCount } = await collection.updateOne(
        { ...filter, lease_token: token } as Filter<D>,
        { $set: { lease_until: until } } as unknown as UpdateFilter<D>
      )
      return matchedCount === 1 ? { token, until } : undefined
    },

    /** Applies `update` to the document matching `filter` only while `token` is its current token: true when it applied. */
    whileHeld: async (
      filter: Filter<D>,
      token: FencingToken,
      update: UpdateFilter<D>,
      session?: ClientSession | undefined
    ) => {
      // Matched is enough: an update that leaves the document as it was still applied.
      const { matchedCount } = await collection.updateOne(
        { ...filter, lease_token: token } as Filter<D>,
        update,
        session === undefined ? {} : { session }
      )
      return matchedCount === 1
    },

    /** Gives the document matching `filter` up for the holder of `token`: its lease lapses now, and `set` applies. */
    release: async (filter: Filter<D>, token: FencingToken, set: Document = {}) => {
      const { matchedCount } = await collection.updateOne(
        { ...filter, lease_token: token } as Filter<D>,
        { $set: { ...set, lease_until: 0 } } as unknown as UpdateFilter<D>
      )
      return matchedCount === 1
    }
  }
}

/**
 * A lease whose document is made by its first taking (the follower's, a relayer key's, the pruning worker's): kept
 * when `held` is still its token (a renewal keeps the token), taken when free at `now`; the lease, or `undefined`
 * while another holds it.
 */
export const takeOrKeep = async <D extends Document & LeaseFields & { _id: string }>(
  collection: Collection<D>,
  id: string,
  options: { readonly held: FencingToken | undefined; readonly now: number; readonly until: number }
): Promise<Lease | undefined> => {
  const leases = on(collection)
  const filter = { _id: id } as Filter<D>
  const kept = options.held === undefined ? undefined : await leases.renew(filter, options.held, options.until)
  if (kept !== undefined) return kept
  const taken = await leases.take(filter, options)
  if (taken !== undefined) return taken
  // Made the first time only (a free one, taken with a conditional write: decision 0017).
  const made = await setOrMake(collection, { _id: id, lease_until: { $lte: options.now } } as never, { lease_until: 0 })
  return made ? leases.take(filter, options) : undefined
}
