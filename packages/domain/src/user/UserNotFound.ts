/**
 * The error of an unknown user.
 */
import { Schema } from "effect"
import type { ErrorCode } from "../errors/ErrorCatalog.ts"

/** No user has this id. */
export class UserNotFound extends Schema.TaggedError<UserNotFound>()("UserNotFound", { user: Schema.String }) {
  /** The API error code. */
  get errorCode(): ErrorCode {
    return "USER_NOT_FOUND"
  }
}
