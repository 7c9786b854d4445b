/**
 * The ways a Sign-In with Ethereum message can be refused, one typed error each, with the API code it maps to.
 */
import { Schema } from "effect"
import type { ErrorCode } from "../errors/ErrorCatalog.ts"

/** The text is not an EIP-4361 message (or the request could not be written as one). */
export class SiweMalformedMessage extends Schema.TaggedError<SiweMalformedMessage>()("SiweMalformedMessage", {
  reason: Schema.String
}) {
  /** The API error code. */
  get errorCode(): ErrorCode {
    return "INVALID_SIWE_MESSAGE"
  }
}

/** The message names a scheme (`http://api.svc.example wants you…`) other than our origin's (EIP-4361). */
export class SiweSchemeMismatch extends Schema.TaggedError<SiweSchemeMismatch>()("SiweSchemeMismatch", {
  expected: Schema.String,
  received: Schema.String
}) {
  /** The API error code. */
  get errorCode(): ErrorCode {
    return "SIWE_MISMATCH"
  }
}

/** The message names another domain (RFC 4501 authority) than ours. */
export class SiweDomainMismatch extends Schema.TaggedError<SiweDomainMismatch>()("SiweDomainMismatch", {
  expected: Schema.String,
  received: Schema.String
}) {
  /** The API error code. */
  get errorCode(): ErrorCode {
    return "SIWE_MISMATCH"
  }
}

/** The message's `URI:` is not the one we issue messages for. */
export class SiweUriMismatch extends Schema.TaggedError<SiweUriMismatch>()("SiweUriMismatch", {
  expected: Schema.String,
  received: Schema.String
}) {
  /** The API error code. */
  get errorCode(): ErrorCode {
    return "SIWE_MISMATCH"
  }
}

/** The message's `Chain ID:` is not our chain. */
export class SiweChainMismatch extends Schema.TaggedError<SiweChainMismatch>()("SiweChainMismatch", {
  expected: Schema.Number,
  received: Schema.Number
}) {
  /** The API error code. */
  get errorCode(): ErrorCode {
    return "SIWE_MISMATCH"
  }
}

/** The message's `Nonce:` is not the nonce the caller presented (or that we issued). */
export class SiweNonceMismatch extends Schema.TaggedError<SiweNonceMismatch>()("SiweNonceMismatch", {
  expected: Schema.String,
  received: Schema.String
}) {
  /** The API error code. */
  get errorCode(): ErrorCode {
    return "EXPIRED_NONCE"
  }
}

/** `Issued At:` lies in the future (beyond the allowed clock skew) or is not a date. */
export class SiweIssuedInFuture extends Schema.TaggedError<SiweIssuedInFuture>()("SiweIssuedInFuture", {
  issuedAt: Schema.String,
  now: Schema.String
}) {
  /** The API error code. */
  get errorCode(): ErrorCode {
    return "SIWE_NOT_YET_VALID"
  }
}

/** `Not Before:` has not been reached yet. */
export class SiweNotYetValid extends Schema.TaggedError<SiweNotYetValid>()("SiweNotYetValid", {
  notBefore: Schema.String,
  now: Schema.String
}) {
  /** The API error code. */
  get errorCode(): ErrorCode {
    return "SIWE_NOT_YET_VALID"
  }
}

/** `Expiration Time:` has passed. */
export class SiweExpired extends Schema.TaggedError<SiweExpired>()("SiweExpired", {
  expirationTime: Schema.String,
  now: Schema.String
}) {
  /** The API error code. */
  get errorCode(): ErrorCode {
    return "SIWE_EXPIRED"
  }
}

/** The signed text is not the message issued with its nonce, byte for byte (an edited statement or time). */
export class SiweNotIssued extends Schema.TaggedError<SiweNotIssued>()("SiweNotIssued", { nonce: Schema.String }) {
  /** The API error code. */
  get errorCode(): ErrorCode {
    return "SIWE_MISMATCH"
  }
}

/** The signature was not made by the message's address. */
export class SiweSignatureMismatch extends Schema.TaggedError<SiweSignatureMismatch>()("SiweSignatureMismatch", {
  address: Schema.String
}) {
  /** The API error code. */
  get errorCode(): ErrorCode {
    return "SIGNATURE_MISMATCH"
  }
}

/** Any reason a SIWE message fails validation (before the signature is checked). */
export type SiweValidationError =
  | SiweSchemeMismatch
  | SiweDomainMismatch
  | SiweUriMismatch
  | SiweChainMismatch
  | SiweNonceMismatch
  | SiweIssuedInFuture
  | SiweNotYetValid
  | SiweExpired
