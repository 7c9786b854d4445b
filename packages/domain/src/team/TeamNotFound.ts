/**
 * The error of a team that is unknown or deleted.
 */
import { Schema } from "effect"
import type { ErrorCode } from "../errors/ErrorCatalog.ts"

/** No active team has this id (a deleted team is not found either). */
export class TeamNotFound extends Schema.TaggedError<TeamNotFound>()("TeamNotFound", { team: Schema.String }) {
  /** The API error code. */
  get errorCode(): ErrorCode {
    return "TEAM_NOT_FOUND"
  }
}
