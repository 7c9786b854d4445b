/**
 * Expected failures of the command line, and the one place that turns any failure into what a person reads: a line on
 * stderr (the API's message and code for an API error) and a non-zero exit code, never a stack trace.
 */
import { Schema } from "effect"

/** A failure the user can act on: a bad argument, no session, a refused confirmation, an API error. */
export class CliFailure extends Schema.TaggedError<CliFailure>()("CliFailure", {
  message: Schema.String,
  /** The API's `error_code`, when the API refused. */
  code: Schema.optional(Schema.String),
  /** The HTTP status, when the API answered. */
  status: Schema.optional(Schema.Number)
}) {}

/** A bad argument: which one, and why. */
export const badArgument = (name: string, why: string) => new CliFailure({ message: `invalid ${name}: ${why}` })

/** The error envelope of the API (SPEC §7), when `body` is one. */
export const envelopeOf = (body: unknown): { readonly data: string; readonly error_code?: string } | undefined => {
  if (typeof body !== "object" || body === null) return undefined
  const { data, error_code } = body as { data?: unknown; error_code?: unknown }
  if (typeof data !== "string") return undefined
  return typeof error_code === "string" ? { data, error_code } : { data }
}

/** The line printed on stderr for a failure. */
export const describeFailure = (failure: CliFailure): string => {
  const detail = [failure.code, failure.status === undefined ? undefined : `HTTP ${failure.status}`]
    .filter((part) => part !== undefined)
    .join(", ")
  return `error: ${failure.message}${detail === "" ? "" : ` (${detail})`}`
}
