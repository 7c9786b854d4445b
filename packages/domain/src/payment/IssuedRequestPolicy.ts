/**
 * How much issued-but-unexecuted payment requests a team may hold, how long they stay executable, and how long an
 * expired one is kept before the sweep deletes it (docs/payments.md). Issued requests are stored until executed, so
 * without a budget one team could fill the database and slow every other (issue 14).
 */
import { Context } from "effect"
import { defaultTypedDataTtlSeconds } from "../eip712/TypedDataBuilder.ts"

/** The limits on issued payment requests. */
export interface IssuedRequestLimits {
  /** Stored bytes a team may hold in unexecuted, unexpired requests (default 8 MiB). */
  readonly maxBytes: number
  /** How many unexecuted, unexpired requests a team may hold (default 1000). */
  readonly maxCount: number
  /** How long issued payment typed data stays executable (default 10 minutes, DESIGN §5). */
  readonly ttlSeconds: number
  /**
   * How long an expired, unexecuted request is kept before the sweep deletes it (default one hour): meanwhile a
   * PUT of it still answers `EXPIRED_TYPED_DATA`, afterwards `TYPED_DATA_NOT_FOUND`. It counts against no budget.
   */
  readonly keptAfterExpirySeconds: number
}

/** The defaults of `IssuedRequestPolicy`. */
export const defaultIssuedRequestLimits: IssuedRequestLimits = {
  maxBytes: 8 * 1024 * 1024,
  maxCount: 1000,
  ttlSeconds: defaultTypedDataTtlSeconds,
  keptAfterExpirySeconds: 3600
}

/** The limits in force; the composition root sets them from `ServerOptions` (env `ISSUED_REQUESTS_*`). */
export class IssuedRequestPolicy extends Context.Reference<IssuedRequestLimits>(
  "@svc/domain/payment/IssuedRequestPolicy",
  { defaultValue: () => defaultIssuedRequestLimits }
) {}
