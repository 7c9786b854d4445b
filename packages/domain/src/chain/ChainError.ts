/**
 * The on-chain refusals, as domain errors: the adapter decodes every revert into one of these, never a raw RPC error.
 * Integers (amounts, salts, times) are decimal strings so the errors serialise as JSON. A bad signature is the
 * EIP-712 `InvalidSignature` of `eip712/`, whichever side (service or chain) finds it.
 */
import { Schema } from "effect"
import { InvalidSignature } from "../eip712/TypedDataError.ts"
import type { ErrorCode } from "../errors/ErrorCatalog.ts"

export { InvalidSignature }

/** The account holds less of the token than the payments need. */
export class InsufficientBalance extends Schema.TaggedError<InsufficientBalance>()("InsufficientBalance", {
  account: Schema.String,
  token: Schema.String,
  balance: Schema.String,
  amount: Schema.String
}) {
  /** The API error code. */
  get errorCode(): ErrorCode {
    return "INSUFFICIENT_BALANCE"
  }
}

/** The request's `expires` is in the past (chain time). */
export class RequestExpired extends Schema.TaggedError<RequestExpired>()("RequestExpired", {
  expires: Schema.String
}) {
  /** The API error code. */
  get errorCode(): ErrorCode {
    return "EXPIRED_TYPED_DATA"
  }
}

/** The salt was already used on this forwarder: the request (or another with the same salt) executed. */
export class SaltReplayed extends Schema.TaggedError<SaltReplayed>()("SaltReplayed", {
  salt: Schema.String
}) {
  /** The API error code. */
  get errorCode(): ErrorCode {
    return "ALREADY_EXECUTED"
  }
}

/** The signer may not act on this account (payments: owner, team admins, finance admins; roles: owner, admins). */
export class SignerNotAuthorised extends Schema.TaggedError<SignerNotAuthorised>()("SignerNotAuthorised", {
  signer: Schema.String,
  account: Schema.String
}) {
  /** The API error code. */
  get errorCode(): ErrorCode {
    return "INSUFFICIENT_PERMISSIONS"
  }
}

/** `to` is not an account created by this forwarder. */
export class UnknownAccount extends Schema.TaggedError<UnknownAccount>()("UnknownAccount", {
  account: Schema.String
}) {
  /** The API error code. */
  get errorCode(): ErrorCode {
    return "NOT_FOUND"
  }
}

/** The request is well signed but its content cannot execute (unknown pay type or role, bad escrow entry, ...). */
export class InvalidRequest extends Schema.TaggedError<InvalidRequest>()("InvalidRequest", {
  reason: Schema.String
}) {
  /** The API error code. */
  get errorCode(): ErrorCode {
    return "VALIDATION_ERROR"
  }
}

/** No intent with this id on the account. */
export class IntentNotFound extends Schema.TaggedError<IntentNotFound>()("IntentNotFound", {
  account: Schema.String,
  id: Schema.String
}) {
  /** The API error code. */
  get errorCode(): ErrorCode {
    return "PAYMENT_NOT_FOUND"
  }
}

/** The intent's `payAtTime` is still ahead. */
export class IntentNotDue extends Schema.TaggedError<IntentNotDue>()("IntentNotDue", {
  id: Schema.String,
  payAtTime: Schema.String
}) {
  /** The API error code. */
  get errorCode(): ErrorCode {
    return "INVALID_STATE_TRANSITION"
  }
}

/** The intent's window (`payAtTime + validMinutes * 60`) has passed; it can no longer execute. */
export class IntentValidityElapsed extends Schema.TaggedError<IntentValidityElapsed>()("IntentValidityElapsed", {
  id: Schema.String,
  validUntil: Schema.String
}) {
  /** The API error code. */
  get errorCode(): ErrorCode {
    return "INVALID_STATE_TRANSITION"
  }
}

/** The intent already executed. */
export class IntentAlreadyExecuted extends Schema.TaggedError<IntentAlreadyExecuted>()("IntentAlreadyExecuted", {
  id: Schema.String
}) {
  /** The API error code. */
  get errorCode(): ErrorCode {
    return "ALREADY_EXECUTED"
  }
}

/** Nothing is held in escrow under this claim id for this token. */
export class EscrowClaimEmpty extends Schema.TaggedError<EscrowClaimEmpty>()("EscrowClaimEmpty", {
  claimId: Schema.String,
  token: Schema.String
}) {
  /** The API error code. */
  get errorCode(): ErrorCode {
    return "INVALID_STATE_TRANSITION"
  }
}

/** A revert the domain has no name for (a token's own failure, an out-of-gas): `reason` says what the node said. */
export class SettlementReverted extends Schema.TaggedError<SettlementReverted>()("SettlementReverted", {
  reason: Schema.String
}) {
  /** The API error code. */
  get errorCode(): ErrorCode {
    return "INTERNAL_ERROR"
  }
}

/**
 * Nothing was sent: the node could not be reached, or answered with something other than a revert, before any
 * transaction could have reached it (a read, an estimate, the fees, the nonce, a refused connection, a key that stayed
 * busy). The caller may retry, and a claim may be released: a retry cannot execute twice (decision 0092).
 */
export class ChainUnreachable extends Schema.TaggedError<ChainUnreachable>()("ChainUnreachable", {
  reason: Schema.String
}) {
  /** The API error code. */
  get errorCode(): ErrorCode {
    return "SERVICE_UNAVAILABLE"
  }
}

/**
 * A transaction was journaled and may have reached the node, but its outcome is unknown (a send whose answer was lost,
 * a node that went away while it was awaited, a transaction not final in time). It may yet be mined: a claim on what it
 * carries is kept, and recovery finds out from the chain (decision 0092). `transaction` is the journaled version's hash.
 */
export class SendOutcomeUnknown extends Schema.TaggedError<SendOutcomeUnknown>()("SendOutcomeUnknown", {
  reason: Schema.String,
  transaction: Schema.String
}) {
  /** The API error code. */
  get errorCode(): ErrorCode {
    return "SERVICE_UNAVAILABLE"
  }
}

/**
 * This deployment has no chain (`ChainGateway.layerAbsent`): what needs one answers 501 `NOT_IMPLEMENTED`. The absent
 * gateway dies with it, as a defect: no use case can handle a missing chain, and the error envelope answers it by tag,
 * as it answers `ChainUnreachable` with 503 whether failed or died with.
 */
export class ChainAbsent extends Schema.TaggedError<ChainAbsent>()("ChainAbsent", {
  operation: Schema.String
}) {
  /** The API error code. */
  get errorCode(): ErrorCode {
    return "NOT_IMPLEMENTED"
  }
}

/** Why a forwarded request (payments, instant payment, roles) did not execute. */
export type RequestError =
  | RequestExpired
  | SaltReplayed
  | InvalidSignature
  | SignerNotAuthorised
  | UnknownAccount
  | InsufficientBalance
  | InvalidRequest
  | SettlementReverted
  | ChainUnreachable
  | SendOutcomeUnknown

/** Why an intent did not execute. */
export type IntentError =
  | IntentNotFound
  | IntentNotDue
  | IntentValidityElapsed
  | IntentAlreadyExecuted
  | InsufficientBalance
  | SettlementReverted
  | ChainUnreachable
  | SendOutcomeUnknown

/** Why a transaction the service sends of its own (an account, a revocation, an escrow release) did not go through. */
export type SendError = SettlementReverted | ChainUnreachable | SendOutcomeUnknown

/** Every error the chain gateway reports. */
export type ChainError = RequestError | IntentError | EscrowClaimEmpty
