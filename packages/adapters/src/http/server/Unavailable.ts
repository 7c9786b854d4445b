/**
 * Which failures are an outage of a dependency rather than a bug: they answer 503 `SERVICE_UNAVAILABLE` with
 * `Retry-After`, not 500 (docs/decisions/0037). The domain's `ChainUnreachable`, `SendOutcomeUnknown` (decision 0092:
 * where a use case has no better answer, such as a transaction in flight) and `StorageUnavailable`, failed or
 * died with, and what the storage drivers throw when their database is gone, read here by name so the HTTP side
 * imports no driver: the MongoDB driver's connection errors, and SQLite's busy/locked after its busy timeout.
 */

/** The seconds a 503 tells the caller to wait before retrying. */
export const retryAfterSeconds = 5

const domainTags = new Set(["ChainUnreachable", "SendOutcomeUnknown", "StorageUnavailable"])

// The MongoDB driver's errors for a server it cannot reach, lost, or closed (mongodb's error.ts).
const mongoConnectionErrors = new Set([
  "MongoServerSelectionError",
  "MongoNetworkError",
  "MongoNetworkTimeoutError",
  "MongoTopologyClosedError",
  "MongoPoolClearedError",
  "MongoNotConnectedError",
  "MongoServerClosedError"
])

// SQLITE_BUSY and SQLITE_LOCKED: another connection held the lock past the busy timeout.
const sqliteBusyCodes = new Set([5, 6])

/** Whether `value`, or what caused it, is a dependency outage. */
export const isUnavailable = (value: unknown): boolean => {
  let current: unknown = value
  for (let depth = 0; depth < 10 && typeof current === "object" && current !== null; depth++) {
    const { _tag, errcode, name } = current as { readonly _tag?: unknown; readonly errcode?: unknown; name?: unknown }
    if (typeof _tag === "string" && domainTags.has(_tag)) return true
    if (typeof name === "string" && mongoConnectionErrors.has(name)) return true
    if (typeof errcode === "number" && sqliteBusyCodes.has(errcode & 0xff)) return true
    current = (current as { readonly cause?: unknown }).cause
  }
  return false
}
