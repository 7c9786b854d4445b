/**
 * Why a signed request is refused before it reaches the chain, with the API code each maps to.
 */
import { Schema } from "effect"
import type { ErrorCode } from "../errors/ErrorCatalog.ts"

/** The signature was not made by `signer` over this typed data (other key, tampered field, other domain). */
export class InvalidSignature extends Schema.TaggedError<InvalidSignature>()("InvalidSignature", {
  signer: Schema.String,
  digest: Schema.String
}) {
  /** The API error code. */
  get errorCode(): ErrorCode {
    return "INVALID_SIGNATURE"
  }
}

/** `expires` has passed. */
export class ExpiredTypedData extends Schema.TaggedError<ExpiredTypedData>()("ExpiredTypedData", {
  expires: Schema.String,
  now: Schema.Number
}) {
  /** The API error code. */
  get errorCode(): ErrorCode {
    return "EXPIRED_TYPED_DATA"
  }
}

/** The client's `typed_data` differs from what the service issued for that salt. */
export class TypedDataMismatch extends Schema.TaggedError<TypedDataMismatch>()("TypedDataMismatch", {
  expected: Schema.String,
  received: Schema.String
}) {
  /** The API error code. */
  get errorCode(): ErrorCode {
    return "TYPED_DATA_MISMATCH"
  }
}

/** The values cannot be EIP-712 encoded with the bundle's types. */
export class MalformedTypedData extends Schema.TaggedError<MalformedTypedData>()("MalformedTypedData", {
  reason: Schema.String
}) {
  /** The API error code. */
  get errorCode(): ErrorCode {
    return "VALIDATION_ERROR"
  }
}
