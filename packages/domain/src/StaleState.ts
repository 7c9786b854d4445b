/**
 * The error of a lost race: a conditional update found the record no longer in the state it expected.
 */
import { Schema } from "effect"
import type { ErrorCode } from "./errors/ErrorCatalog.ts"

/** The record changed under us (another replica moved it first); re-read and decide again. */
export class StaleState extends Schema.TaggedError<StaleState>()("StaleState", {
  resource: Schema.String,
  id: Schema.String,
  expected: Schema.String
}) {
  /** The API error code. */
  get errorCode(): ErrorCode {
    return "INVALID_STATE_TRANSITION"
  }
}
