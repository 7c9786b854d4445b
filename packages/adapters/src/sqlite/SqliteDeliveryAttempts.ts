/**
 * A delivery's attempts as `webhook_attempts` keeps them: one row each, what the attempt did not get `NULL`, and the
 * start of the receiver's answer as two columns (its text, and whether it was cut).
 */
import type { DatabaseSync } from "node:sqlite"
import { DeliveryId } from "@svc/domain/Ids"
import type { DeliveryAttempt } from "@svc/domain/webhook"
import { Schema } from "effect"
import * as RowDecoder from "./RowDecoder.ts"

/** A `webhook_attempts` row. */
const AttemptRow = Schema.Struct({
  delivery_nanoid: DeliveryId,
  number: Schema.Number,
  at: Schema.Number,
  status_code: Schema.NullOr(Schema.Number),
  duration_ms: Schema.Number,
  error: Schema.NullOr(Schema.String),
  response_body: Schema.NullOr(Schema.String),
  response_body_truncated: Schema.Literals([0, 1])
})

const attemptRowOf = RowDecoder.rows("webhook_attempts", AttemptRow)

const optional = <A>(value: A | null): A | undefined => (value === null ? undefined : value)

/** The attempt a row holds. */
export const attemptOf = (row: Record<string, unknown>): DeliveryAttempt => {
  const { status_code, error, response_body, response_body_truncated, ...columns } = attemptRowOf(row)
  return {
    ...columns,
    status_code: optional(status_code),
    error: optional(error),
    ...(response_body === null
      ? {}
      : { response_body: { text: response_body, truncated: response_body_truncated === 1 } })
  }
}

/** The statements of the attempts, prepared once on the connection: `insert` one, the attempts `of` deliveries. */
export const attemptStatements = (connection: DatabaseSync) => {
  const insert = connection.prepare(
    `INSERT OR REPLACE INTO webhook_attempts (delivery_nanoid, number, at, status_code, duration_ms, error,
       response_body, response_body_truncated) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`
  )
  const of = connection.prepare(
    `SELECT delivery_nanoid, number, at, status_code, duration_ms, error, response_body, response_body_truncated
     FROM webhook_attempts WHERE delivery_nanoid IN (SELECT value FROM json_each(?)) ORDER BY delivery_nanoid, number`
  )
  return {
    insert: (a: DeliveryAttempt) => {
      insert.run(
        a.delivery_nanoid,
        a.number,
        a.at,
        a.status_code ?? null,
        a.duration_ms,
        a.error ?? null,
        a.response_body?.text ?? null,
        a.response_body?.truncated === true ? 1 : 0
      )
    },
    /** The attempts of the deliveries `ids`, by delivery, oldest first. */
    of: (ids: ReadonlyArray<string>): ReadonlyArray<DeliveryAttempt> =>
      ids.length === 0 ? [] : of.all(JSON.stringify(ids)).map(attemptOf)
  }
}
