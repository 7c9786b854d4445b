/**
 * The errors of a team that is unknown or deleted, or that cannot be deleted yet.
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

/** The team still holds money or intents waiting to be paid: deleting it would strand them. */
export class TeamNotEmpty extends Schema.TaggedError<TeamNotEmpty>()("TeamNotEmpty", {
  team: Schema.String,
  message: Schema.String
}) {
  /** The API error code. */
  get errorCode(): ErrorCode {
    return "TEAM_NOT_EMPTY"
  }
}
