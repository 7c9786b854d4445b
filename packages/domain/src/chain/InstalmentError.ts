/**
 * The chain's refusals of a pay schedule's instalment (contracts version 5), as domain errors: the adapter decodes
 * `executeInstalment`'s reverts into these. `n` is the instalment's index, from 0; times are unix seconds, as decimal
 * strings.
 */
import { Schema } from "effect"
import type { ErrorCode } from "../errors/ErrorCatalog.ts"
import type { ChainUnreachable, InsufficientBalance, SendOutcomeUnknown, SettlementReverted } from "./ChainError.ts"

/** The account has no schedule with this id. */
export class ScheduleNotFound extends Schema.TaggedError<ScheduleNotFound>()("ScheduleNotFound", {
  account: Schema.String,
  id: Schema.String
}) {
  /** The API error code. */
  get errorCode(): ErrorCode {
    return "PAY_SCHEDULE_NOT_FOUND"
  }
}

/** The schedule was canceled, or its signer's authority was revoked: it pays nothing more, ever. */
export class ScheduleNotActive extends Schema.TaggedError<ScheduleNotActive>()("ScheduleNotActive", {
  id: Schema.String
}) {
  /** The API error code. */
  get errorCode(): ErrorCode {
    return "INVALID_STATE_TRANSITION"
  }
}

/** The schedule has no instalment `n` (it has `count`, numbered from 0). */
export class InstalmentNotFound extends Schema.TaggedError<InstalmentNotFound>()("InstalmentNotFound", {
  id: Schema.String,
  n: Schema.Number
}) {
  /** The API error code. */
  get errorCode(): ErrorCode {
    return "PAY_SCHEDULE_NOT_FOUND"
  }
}

/** Instalment `n` is due later (chain time). */
export class InstalmentNotDue extends Schema.TaggedError<InstalmentNotDue>()("InstalmentNotDue", {
  id: Schema.String,
  n: Schema.Number,
  dueAt: Schema.String
}) {
  /** The API error code. */
  get errorCode(): ErrorCode {
    return "INVALID_STATE_TRANSITION"
  }
}

/** Instalment `n`'s validity ended unpaid: it stays unpaid for good (a later one can still be paid). */
export class InstalmentValidityElapsed extends Schema.TaggedError<InstalmentValidityElapsed>()(
  "InstalmentValidityElapsed",
  { id: Schema.String, n: Schema.Number, validUntil: Schema.String }
) {
  /** The API error code. */
  get errorCode(): ErrorCode {
    return "INVALID_STATE_TRANSITION"
  }
}

/** Instalment `n` was paid already. */
export class InstalmentAlreadyPaid extends Schema.TaggedError<InstalmentAlreadyPaid>()("InstalmentAlreadyPaid", {
  id: Schema.String,
  n: Schema.Number
}) {
  /** The API error code. */
  get errorCode(): ErrorCode {
    return "ALREADY_EXECUTED"
  }
}

/** Why an instalment did not execute: the chain's refusals, a balance too low, or the node. */
export type InstalmentError =
  | ScheduleNotFound
  | ScheduleNotActive
  | InstalmentNotFound
  | InstalmentNotDue
  | InstalmentValidityElapsed
  | InstalmentAlreadyPaid
  | InsufficientBalance
  | SettlementReverted
  | ChainUnreachable
  | SendOutcomeUnknown
