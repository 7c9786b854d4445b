/**
 * Whether the database answers: the port readiness asks (`GET /ready`), and the error a request meets when the
 * database is down or too slow (503 with `Retry-After`, not 500; docs/decisions/0037).
 */
import { Context, type Effect, Schema } from "effect"
import type { ErrorCode } from "./errors/ErrorCatalog.ts"

/** The database could not be reached in time (down, unreachable, or locked by another writer too long). */
export class StorageUnavailable extends Schema.TaggedError<StorageUnavailable>()("StorageUnavailable", {
  reason: Schema.String
}) {
  /** The API error code. */
  get errorCode(): ErrorCode {
    return "SERVICE_UNAVAILABLE"
  }

  /** The reason, as logs and `/ready`'s outages show it. */
  override get message(): string {
    return this.reason
  }
}

/** Asks the database for a round trip. */
export class StorageHealth extends Context.Service<
  StorageHealth,
  {
    /** Succeeds when the database answered a trivial command. */
    readonly ping: Effect.Effect<void, StorageUnavailable>
  }
>()("@svc/domain/StorageHealth") {}
