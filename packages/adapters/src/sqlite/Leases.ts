/**
 * Leases on SQLite rows: the one mechanism behind every claim of this adapter (issued requests being executed, due
 * intents, outbox events, idempotency keys; webhook deliveries and invites reuse it). A leased table has the columns
 * `lease_holder` (a random token naming one taking of the row) and `lease_until` (epoch ms; the lease holds while
 * `now < lease_until`, domain `Lease`). A row is taken with one conditional `UPDATE` when it is free (its lease lapsed,
 * and whatever else the caller requires), under a fresh holder token; later writes and the release act only while
 * that token still holds the row, so a holder whose lease was taken over changes nothing.
 *
 * Each builder prepares its statement once (call them when a layer starts) and answers a synchronous function, to be
 * called alone or inside `SqliteDatabase.transaction`. Conditions and assignments are SQL with named parameters;
 * `:now`, `:until` and `:holder` are the lease's own.
 */
import { randomUUID } from "node:crypto"
import type { DatabaseSync, SQLInputValue } from "node:sqlite"
import type { Lease } from "@svc/domain/Lease"

/** A fresh holder token. */
export const newHolder = (): string => randomUUID()

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

/** The lease statements of one table. */
export const on = (connection: DatabaseSync, leased: LeasedTable) => ({
  /**
   * Takes one row if it is free at `:now` and `when` holds: sets a new holder (`holder` if given, else a fresh token),
   * `lease_until = :until` and `set`. Answers the lease, or `undefined` when the row was not free (or is missing).
   */
  take: (options: { readonly when?: string; readonly set?: string } = {}) => {
    const statement = connection.prepare(
      `UPDATE ${leased.table} SET lease_holder = :holder, lease_until = :until${also(options.set)}
       WHERE ${leased.row} AND lease_until <= :now${and(options.when)}`
    )
    return (
      parameters: Parameters & { readonly now: number; readonly until: number; readonly holder?: string }
    ): Lease | undefined => {
      const holder = parameters.holder ?? newHolder()
      return statement.run({ ...parameters, holder }).changes === 1 ? { holder, until: parameters.until } : undefined
    }
  },

  /**
   * Takes up to `:limit` free rows where `when` holds, the first in `order`, for one holder (as `take`), in one
   * statement; answers the columns `returning` of the rows taken, in no particular order.
   */
  takeMany: (options: {
    readonly when?: string
    readonly set?: string
    readonly order: string
    readonly returning: string
  }) => {
    const statement = connection.prepare(
      `UPDATE ${leased.table} SET lease_holder = :holder, lease_until = :until${also(options.set)}
       WHERE ${leased.key} IN (
         SELECT ${leased.key} FROM ${leased.table} WHERE lease_until <= :now${and(options.when)}
         ORDER BY ${options.order} LIMIT :limit
       )
       RETURNING ${options.returning}`
    )
    return (
      parameters: Parameters & {
        readonly now: number
        readonly until: number
        readonly limit: number
        readonly holder?: string
      }
    ) => statement.all({ ...parameters, holder: parameters.holder ?? newHolder() })
  },

  /** An update of one row applied only while `:holder` holds it (and `when` holds): true when it applied. */
  whileHeld: (options: { readonly set: string; readonly when?: string }) => {
    const statement = connection.prepare(
      `UPDATE ${leased.table} SET ${options.set} WHERE ${leased.row} AND lease_holder = :holder${and(options.when)}`
    )
    return (parameters: Parameters & { readonly holder: string }) => statement.run(parameters).changes === 1
  },

  /** Gives one row up for its holder `:holder` (if `when` holds): clears the lease and applies `set`. */
  release: (options: { readonly set?: string; readonly when?: string } = {}) => {
    const statement = connection.prepare(
      `UPDATE ${leased.table} SET lease_holder = NULL, lease_until = 0${also(options.set)}
       WHERE ${leased.row} AND lease_holder = :holder${and(options.when)}`
    )
    return (parameters: Parameters & { readonly holder: string }) => statement.run(parameters).changes === 1
  }
})
