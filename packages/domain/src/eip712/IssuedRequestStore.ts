/**
 * The typed data the service issued, kept so execution rebuilds the digest from our record (DESIGN §5) and so a
 * salt executes at most once.
 */
import { Context, type Effect, Schema } from "effect"
import type { Address, Uint256String } from "../Evm.ts"
import { type ErrorCode, messageField } from "../errors/ErrorCatalog.ts"
import type { InviteId, TeamId, UserId } from "../Ids.ts"
import type { IssuedPaymentsRequest, IssuedScheduleRequest } from "../payment/IssuedPayments.ts"
import type {
  PaymentsTypedDataBundle,
  PaymentTypedDataBundle,
  RolesTypedDataBundle,
  ScheduleTypedDataBundle
} from "./TypedData.ts"

/** No typed data was issued with this salt. */
export class TypedDataNotFound extends Schema.TaggedError<TypedDataNotFound>()("TypedDataNotFound", {
  salt: Schema.String
}) {
  /** The API error code. */
  get errorCode(): ErrorCode {
    return "TYPED_DATA_NOT_FOUND"
  }
}

/** The salt is claimed already: a replay, or a second replica executing the same request (API `ALREADY_EXECUTED`). */
export class AlreadyClaimed extends Schema.TaggedError<AlreadyClaimed>()("AlreadyClaimed", {
  salt: Schema.String
}) {
  /** The API error code. */
  get errorCode(): ErrorCode {
    return "ALREADY_EXECUTED"
  }
}

/**
 * The team already holds as many issued requests, not yet executed and not expired, as it may (count or stored
 * bytes): it executes some, or lets them expire, before it is issued more.
 */
export class IssuedRequestsLimit extends Schema.TaggedError<IssuedRequestsLimit>()("IssuedRequestsLimit", {
  team: Schema.String,
  message: messageField("ISSUED_REQUESTS_LIMIT")
}) {
  /** The API error code. */
  get errorCode(): ErrorCode {
    return "ISSUED_REQUESTS_LIMIT"
  }
}

/**
 * How much a team may hold in issued requests that are neither executed nor expired at `now` (epoch ms): at most
 * `maxCount` of them, of at most `maxBytes` stored bytes (`storedBytesOf`) together, the new one included.
 */
export interface IssuedBudget {
  readonly maxBytes: number
  readonly maxCount: number
  readonly now: number
}

/** The bytes a record takes in storage, as budgets count them: its JSON in UTF-8. */
export const storedBytesOf = (record: IssuedTypedData): number =>
  new TextEncoder().encode(JSON.stringify(record)).length

/** When a record's typed data expires (unix seconds). */
export const expiryOf = (record: IssuedTypedData): number => Number(record.bundle.typed_data.expires)

/** What every issued record says: the salt, the team, to whom and for which signer it was issued. */
interface IssuedRecord {
  readonly salt: Uint256String
  readonly team: TeamId
  readonly issuedTo: UserId
  readonly signer: Address
  /** Set once executed. */
  readonly claimedAt?: number
}

/** A batch of payments (POST /v2/payments): its bundle and what execution records. */
export interface IssuedBatch extends IssuedRecord {
  readonly kind: "batch"
  readonly bundle: PaymentsTypedDataBundle
  readonly request: IssuedPaymentsRequest
}

/** An instant payment into the e-mail escrow (POST /v2/payments/external_entity/instant). */
export interface IssuedInstant extends IssuedRecord {
  readonly kind: "instant"
  readonly bundle: PaymentTypedDataBundle
  readonly request: IssuedPaymentsRequest
}

/** Manager role grants (POST /v2/invites/manager): the bundle and the invites its execution accepts. */
export interface IssuedRoles extends IssuedRecord {
  readonly kind: "roles"
  readonly bundle: RolesTypedDataBundle
  readonly request: { readonly invites: ReadonlyArray<InviteId> }
}

/** A pay schedule (POST /v2/pay_schedules): the bundle and the schedule its execution records. */
export interface IssuedSchedule extends IssuedRecord {
  readonly kind: "schedule"
  readonly bundle: ScheduleTypedDataBundle
  readonly request: IssuedScheduleRequest
}

/** What was issued, to whom, and what it is for; `kind` tells the bundle's type and the request's. */
export type IssuedTypedData = IssuedBatch | IssuedInstant | IssuedRoles | IssuedSchedule

/** An issued payment request (batch or instant). */
export type IssuedPayment = IssuedBatch | IssuedInstant

/** Whether `issued` is a payment request (a batch or an instant payment). */
export const isIssuedPayment = (issued: IssuedTypedData): issued is IssuedPayment =>
  issued.kind === "batch" || issued.kind === "instant"

/** Issued typed data as its claimer holds it: `claimToken` names the holder, so only it may release or record. */
export type Claimed<T extends IssuedTypedData> = T & {
  readonly claimedAt: number
  /** Random, set by `claim` (and by `PaymentLedger.takeOver`): the holder's proof in `release` and `recordExecution`. */
  readonly claimToken: string
}

/** Any issued typed data as its claimer holds it. */
export type ClaimedTypedData = Claimed<IssuedTypedData>

/**
 * Issued typed data by salt. Implementations must make `claim` atomic across replicas: of any number of concurrent
 * claims of one salt, exactly one succeeds; later ones fail with `AlreadyClaimed`. `release` acts only for the
 * current holder, so a holder whose claim was taken over cannot undo the new holder's.
 */
export class IssuedRequestStore extends Context.Service<
  IssuedRequestStore,
  {
    readonly issue: (record: IssuedTypedData) => Effect.Effect<void>
    /**
     * Records `record` only if its team stays within `budget` with it; `IssuedRequestsLimit` otherwise (nothing
     * kept). Concurrent issues of one team never leave it over budget; near the limit they may all be refused.
     */
    readonly issueWithin: (record: IssuedTypedData, budget: IssuedBudget) => Effect.Effect<void, IssuedRequestsLimit>
    /**
     * What `team` holds against its budget at `now` (epoch ms): its issued requests neither executed nor expired, and
     * their stored bytes. A cheap read, so a request that cannot fit is refused before it is built (issue 18, item 4).
     */
    readonly held: (team: string, now: number) => Effect.Effect<{ readonly count: number; readonly bytes: number }>
    /**
     * Deletes up to `limit` records never executed (not claimed) whose typed data expired at or before `cutoff`
     * (unix seconds); answers how many. Deleting twice is harmless, so sweepers need no lease.
     */
    readonly removeExpired: (cutoff: number, limit: number) => Effect.Effect<number>
    readonly find: (salt: Uint256String) => Effect.Effect<IssuedTypedData, TypedDataNotFound>
    /** Marks the salt executed at `now` (epoch ms), once, under a new random claim token. */
    readonly claim: (
      salt: Uint256String,
      now: number
    ) => Effect.Effect<ClaimedTypedData, TypedDataNotFound | AlreadyClaimed>
    /**
     * Undoes a claim whose execution failed before reaching the chain, so the signer may retry; only while
     * `claimToken` still holds it (else nothing changes).
     */
    readonly release: (salt: Uint256String, claimToken: string) => Effect.Effect<void>
  }
>()("@svc/domain/eip712/IssuedRequestStore") {}
