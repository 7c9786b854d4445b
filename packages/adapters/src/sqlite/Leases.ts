/**
 * Leases on SQLite rows: the one mechanism behind every claim of this adapter (issued requests being executed, due
 * intents, outbox events, idempotency keys, webhook deliveries, mails, relayer keys, the deposit follower, the pruning
 * worker). A leased row has `lease_token` (its fencing token: how many times it was taken, decision 0090) and
 * `lease_until` (epoch ms; the lease holds while `now < lease_until`, domain `Lease`). A row is taken with one
 * conditional `UPDATE` when it is free (its lease lapsed, and whatever else the caller requires), its token raised by
 * one; every later write, the renewal and the release act only while the row's token is still the holder's, in the
 * same statement, so a holder whose lease was taken over changes nothing, however long it was paused.
 *
 * Each builder prepares its statement once (call them when a layer starts) and answers a synchronous function, to be
 * called alone or inside `SqliteDatabase.transaction`. Conditions and assignments are SQL with named parameters;
 * `:now`, `:until` and `:token` are the lease's own.
 */
import type { DatabaseSync, SQLInputValue } from "node:sqlite"
import { type FencingToken, fencingTokenOf, type Lease } from "@svc/domain/Lease"

/** Named parameters of a statement. */
export type Parameters = Record<string, SQLInputValue>

/** A leased table: its name, and the condition that names one row (with named parameters, e.g. `salt = :salt`). */
export interface LeasedTable {
  readonly table: string
  readonly row: string
  /** The key column, for taking rows in bulk. */
  readonly key: string
}

const and = (condition: string | undefined) => (condition === undefined ? "" : ` AND (${condition})`)
const also = (assignments: string | undefined) => (assignments === undefined ? "" : `, ${assignments}`)

/** The lease of a row `RETURNING lease_token`. */
export const leaseOf = (row: Record<string, unknown>, until: number): Lease => ({
  token: fencingTokenOf(Number(row.lease_token)),
  until
})

/** The lease statements of one table. */
export const on = (connection: DatabaseSync, leased: LeasedTable) => ({
  /**
   * Takes one row if it is free at `:now` and `when` holds: raises its token, sets `lease_until = :until` and `set`.
   * Answers the lease, or `undefined` when the row was not free (or is missing).
   */
  take: (options: { readonly when?: string; readonly set?: string } = {}) => {
    const statement = connection.prepare(
      `UPDATE ${leased.table} SET lease_token = lease_token + 1, lease_until = :until${also(options.set)}
       WHERE ${leased.row} AND lease_until <= :now${and(options.when)} RETURNING lease_token`
    )
    return (parameters: Parameters & { readonly now: number; readonly until: number }): Lease | undefined => {
      const row = statement.get(parameters)
      return row === undefined ? undefined : leaseOf(row, parameters.until)
    }
  },

  /**
   * Takes up to `:limit` free rows where `when` holds, the first in `order` (as `take`), in one statement; answers the
   * columns `returning` and `lease_token` of the rows taken, in no particular order.
   */
  takeMany: (options: {
    readonly when?: string
    readonly set?: string
    readonly order: string
    readonly returning: string
  }) => {
    const statement = connection.prepare(
      `UPDATE ${leased.table} SET lease_token = lease_token + 1, lease_until = :until${also(options.set)}
       WHERE ${leased.key} IN (
         SELECT ${leased.key} FROM ${leased.table} WHERE lease_until <= :now${and(options.when)}
         ORDER BY ${options.order} LIMIT :limit
       )
       RETURNING ${options.returning}, lease_token`
    )
    return (parameters: Parameters & { readonly now: number; readonly until: number; readonly limit: number }) =>
      statement.all(parameters)
  },

  /** Extends one row's lease to `:until` while `:token` is its current token (and `when` holds): the lease, or none. */
  renew: (options: { readonly when?: string } = {}) => {
    const statement = connection.prepare(
      `UPDATE ${leased.table} SET lease_until = :until WHERE ${leased.row} AND lease_token = :token${and(options.when)}`
    )
    return (parameters: Parameters & { readonly token: FencingToken; readonly until: number }): Lease | undefined =>
      statement.run(parameters).changes === 1 ? { token: parameters.token, until: parameters.until } : undefined
  },

  /** An update of one row applied only while `:token` is its current token (and `when` holds): true when it applied. */
  whileHeld: (options: { readonly set: string; readonly when?: string }) => {
    const statement = connection.prepare(
      `UPDATE ${leased.table} SET ${options.set} WHERE ${leased.row} AND lease_token = :token${and(options.when)}`
    )
    return (parameters: Parameters & { readonly token: FencingToken }) => statement.run(parameters).changes === 1
  },

  /** Gives one row up for the holder of `:token` (if `when` holds): its lease lapses now, and `set` applies. */
  release: (options: { readonly set?: string; readonly when?: string } = {}) => {
    const statement = connection.prepare(
      `UPDATE ${leased.table} SET lease_until = 0${also(options.set)}
       WHERE ${leased.row} AND lease_token = :token${and(options.when)}`
    )
    return (parameters: Parameters & { readonly token: FencingToken }) => statement.run(parameters).changes === 1
  }
})

/**
 * A lease whose row is made by its first taking (a relayer key's, the follower's, the pruning worker's): `columns`
 * and `values` name the row's key (named parameters), `conflict` its unique columns. Taken when free at `:now`, or
 * kept when `:held` is still its token (a renewal keeps the token); answers the lease, or `undefined` while another
 * holds it.
 */
export const takeOrKeep = (
  connection: DatabaseSync,
  options: { readonly table: string; readonly columns: string; readonly values: string; readonly conflict: string }
) => {
  const statement = connection.prepare(
    `INSERT INTO ${options.table} (${options.columns}, lease_token, lease_until) VALUES (${options.values}, 1, :until)
     ON CONFLICT (${options.conflict}) DO UPDATE SET
       lease_token = CASE WHEN lease_token IS :held THEN lease_token ELSE lease_token + 1 END, lease_until = :until
     WHERE lease_token IS :held OR lease_until <= :now
     RETURNING lease_token`
  )
  return (
    parameters: Parameters & { readonly held: FencingToken | null; readonly now: number; readonly until: number }
  ): Lease | undefined => {
    const row = statement.get(parameters)
    return row === undefined ? undefined : leaseOf(row, parameters.until)
  }
}
