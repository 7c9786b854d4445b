/**
 * Retention in SQLite (`@svc/domain/retention`): the pruning lease is a `worker_leases` row, and each kind is deleted
 * in one transaction bounded by `limit`, on an index of its state and age, while the pruner's fencing token is still
 * the lease's (decision 0090). Deleted pages are reused by later writes, so
 * the file stops growing once the windows have passed.
 */
import { type RetainedKind, RetentionStore } from "@svc/domain/retention"
import { Effect, Layer, Option } from "effect"
import * as Leases from "./Leases.ts"
import { SqliteDatabase } from "./SqliteDatabase.ts"

/** The retention store. */
export const layer = Layer.effect(
  RetentionStore,
  Effect.gen(function* () {
    const { connection, transaction } = yield* SqliteDatabase
    const lease = Leases.takeOrKeep(connection, {
      table: "worker_leases",
      columns: "name",
      values: "'retention'",
      conflict: "name"
    })
    const holds = connection.prepare("SELECT 1 FROM worker_leases WHERE name = 'retention' AND lease_token = ?")
    const oldDeliveries = connection.prepare(
      `SELECT nanoid FROM webhook_deliveries
       WHERE status IN ('succeeded', 'failed') AND updated_at < ? LIMIT ?`
    )
    const deleteAttempts = connection.prepare(
      "DELETE FROM webhook_attempts WHERE delivery_nanoid IN (SELECT value FROM json_each(?))"
    )
    const deleteDeliveries = connection.prepare(
      "DELETE FROM webhook_deliveries WHERE nanoid IN (SELECT value FROM json_each(?))"
    )
    const statements = {
      // `created` is the event's, in seconds.
      events: connection.prepare(
        `DELETE FROM event_outbox WHERE id IN (
           SELECT id FROM event_outbox WHERE dispatched = 1 AND created < ? / 1000 LIMIT ?)`
      ),
      requests: connection.prepare(
        `DELETE FROM issued_requests WHERE salt IN (
           SELECT salt FROM issued_requests WHERE state = 'executed' AND executed_at < ? LIMIT ?)`
      ),
      mails: connection.prepare(
        `DELETE FROM mail_outbox WHERE id IN (
           SELECT id FROM mail_outbox WHERE state IN ('sent', 'failed') AND created < ? LIMIT ?)`
      ),
      transactions: connection.prepare(
        `DELETE FROM chain_transactions WHERE hash IN (
           SELECT hash FROM chain_transactions
           WHERE status IN ('confirmed', 'replaced', 'failed') AND updated_at < ? LIMIT ?)`
      )
    }
    const prune = (kind: RetainedKind, before: number, limit: number, token: number): number =>
      transaction(() => {
        if (holds.get(token) === undefined) return 0
        if (kind !== "deliveries") return Number(statements[kind].run(before, limit).changes)
        // A delivery and its attempts go together.
        const ids = JSON.stringify(oldDeliveries.all(before, limit).map((row) => row.nanoid))
        deleteAttempts.run(ids)
        return Number(deleteDeliveries.run(ids).changes)
      })
    return RetentionStore.of({
      lease: (held, now, until) => Effect.sync(() => Option.fromNullishOr(lease({ held: held ?? null, now, until }))),
      prune: (kind, before, limit, token) => Effect.sync(() => prune(kind, before, limit, token))
    })
  })
)
