/**
 * Leases: how workers and replicas take turns on a stored record (an issued request being executed, a due intent, an
 * event to fan out, an idempotency key, and the deliveries and invites of later workers). Every storage adapter
 * implements them one way (its `Leases` module) and answers a taken lease as this type.
 */

/**
 * A hold on a stored record: `holder` is a random token naming one taking of it, `until` when it lapses (epoch ms;
 * it holds while `now < until`). Only the current holder's token acts on the record (records, completes, releases);
 * once the lease lapses another caller may take the record under a new token, and the old token then changes nothing.
 */
export interface Lease {
  readonly holder: string
  readonly until: number
}
