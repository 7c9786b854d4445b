/**
 * The error of an unknown company.
 */
import { Schema } from "effect"
import type { ErrorCode } from "../errors/ErrorCatalog.ts"

/** No company has this id. */
export class CompanyNotFound extends Schema.TaggedError<CompanyNotFound>()("CompanyNotFound", {
  company: Schema.String
}) {
  /** The API error code. */
  get errorCode(): ErrorCode {
    return "COMPANY_NOT_FOUND"
  }
}
