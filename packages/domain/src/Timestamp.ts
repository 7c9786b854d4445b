/**
 * Times on records and in queries: ISO 8601 UTC instants, and calendar dates (DESIGN §5).
 */
import { Schema } from "effect"

/** An ISO 8601 UTC instant as records carry it, e.g. `2026-11-21T08:00:00.000Z`. */
export const IsoTimestamp = Schema.String.pipe(
  Schema.check(
    Schema.isPattern(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/u, {
      expected: "an ISO 8601 UTC date-time",
      message: "Expected an ISO 8601 UTC date-time such as 2026-11-21T08:00:00.000Z"
    }),
    // Date.parse rolls 2026-02-31 over to March: a real instant formats back to the same calendar date and time.
    Schema.makeFilter(
      (s) => {
        const millis = Date.parse(s)
        return (
          (!Number.isNaN(millis) && new Date(millis).toISOString().startsWith(s.slice(0, 19))) ||
          "Expected a real date-time"
        )
      },
      { toJsonSchema: () => ({ format: "date-time" }) }
    )
  )
)
export type IsoTimestamp = typeof IsoTimestamp.Type

/** A calendar date `YYYY-MM-DD` (UTC), as the payments query's `start_date` and `end_date`. */
export const CalendarDate = Schema.String.pipe(
  Schema.check(
    Schema.isPattern(/^\d{4}-\d{2}-\d{2}$/u, { expected: "a date YYYY-MM-DD", message: "Expected a date YYYY-MM-DD" }),
    Schema.makeFilter(
      (s) => {
        const millis = Date.parse(`${s}T00:00:00.000Z`)
        return (
          (!Number.isNaN(millis) && new Date(millis).toISOString().startsWith(s)) || "Expected a real calendar date"
        )
      },
      { toJsonSchema: () => ({ format: "date" }) }
    )
  )
)
export type CalendarDate = typeof CalendarDate.Type

/** The ISO form of an epoch-milliseconds time. */
export const isoOf = (millis: number): IsoTimestamp => new Date(millis).toISOString()
