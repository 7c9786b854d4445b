/**
 * What a MongoDB write's failure was, for the stores that expect one kind of failure.
 */
import { MongoBulkWriteError } from "mongodb"

/**
 * Whether a write failed only on duplicate keys (code 11000): the write's own error, or every error of a bulk write
 * (one that failed on anything else as well is not a duplicate).
 */
export const isDuplicateKey = (error: unknown): boolean => {
  if (error instanceof MongoBulkWriteError && error.writeErrors !== undefined) {
    const errors = Array.isArray(error.writeErrors) ? error.writeErrors : [error.writeErrors]
    return errors.length > 0 && errors.every((e) => e.code === 11000)
  }
  return typeof error === "object" && error !== null && "code" in error && error.code === 11000
}
