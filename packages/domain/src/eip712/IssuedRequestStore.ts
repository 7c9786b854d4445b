/**
 * The typed data the service issued, kept so execution rebuilds the digest from our record (DESIGN §5) and so a
 * salt executes at most once.
 */
import { Context, type Effect, type Option, Schema } from "effect"
import type { Address, Uint256String } from "../Evm.ts"
import { type ErrorCode, messageField } from "../errors/ErrorCatalog.ts"
import type { InviteId, TeamId, UserId } from "../Ids.ts"
import type { FencingToken, Lease } from "../Lease.ts"
import type { IssuedPaymentsRequest } from "../payment/IssuedPayments.ts"
import type { PaymentsTypedDataBundle, PaymentTypedDataBundle, RolesTypedDataBundle } from "./TypedData.ts"

/**
 * How long a claim of a request's execution holds unless renewed (ms; `CLAIM_LEASE_MS`, default 20 s). Its holder
 * renews it every third of that while it works, so a holder that died (or is paused) loses it within this long, and
 * recovery takes the request over (decision 0093).
 */
export class ClaimLease extends Context.Reference<number>("@svc/domain/eip712/ClaimLease", {
  defaultValue: () => 20_000
}) {}

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
  /** Set once claimed. */
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

/** What was issued, to whom, and what it is for; `kind` tells the bundle's type and the request's. */
export type IssuedTypedData = IssuedBatch | IssuedInstant | IssuedRoles

/** An issued payment request (batch or instant). */
export type IssuedPayment = IssuedBatch | IssuedInstant

/**
 * The claim of a request's execution (decision 0090): a lease its holder renews while it works, whose fencing token
 * every write of the execution names, and when it began.
 */
export interface Claim extends Lease {
  /** When the execution was first claimed (epoch ms): kept by a take-over, so its payments keep their dates. */
  readonly claimedAt: number
}

/** Issued typed data as its claimer holds it: only writes naming `claim.token` apply while it is the current one. */
export type Claimed<T extends IssuedTypedData> = T & {
  readonly claim: Claim
  /** The signature it is executed with, kept from its claim on, so recovery can send it again. */
  readonly signature: string
  /** Reopened: it was recorded once, and the chain lost its transaction (its payments are announced already). */
  readonly reopened?: boolean | undefined
}

/** Any issued typed data as its claimer holds it. */
export type ClaimedTypedData = Claimed<IssuedTypedData>

/** A request left `executing` by a holder whose lease lapsed (it died, or was paused past it). */
export interface AbandonedRequest {
  readonly salt: Uint256String
  readonly issued: IssuedTypedData
}

/**
 * Issued typed data by salt, and its execution's life (`IssuedRequestMachine`, decision 0091). Implementations must
 * make every move one conditional write on the stored state and, for a holder's moves, its current fencing token:
 * of any number of concurrent claims or take-overs of one salt, exactly one succeeds, under a token larger than every
 * earlier one; a holder whose token is no longer current changes nothing.
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
    /** `claim`: `issued` → `executing` at `now`, leased until `until` under a new token, with its signature. */
    readonly claim: (
      salt: Uint256String,
      options: { readonly now: number; readonly until: number; readonly signature: string }
    ) => Effect.Effect<ClaimedTypedData, TypedDataNotFound | AlreadyClaimed>
    /** Extends the holder's lease to `until` while `token` is current: the lease as renewed, else `None`. */
    readonly renew: (salt: Uint256String, token: FencingToken, until: number) => Effect.Effect<Option.Option<Lease>>
    /**
     * `release`: `executing` → `issued`, for an execution refused before the chain spent the salt, so the signer may
     * retry; only while `token` is current (else nothing changes and the answer is `false`).
     */
    readonly release: (salt: Uint256String, token: FencingToken) => Effect.Effect<boolean>
    /**
     * `takeOver`: an `executing` request whose lease lapsed before `now` is taken under a new token until `until`
     * (its claim time and signature kept); `None` when it is not, or another caller took it first.
     */
    readonly takeOver: (
      salt: Uint256String,
      now: number,
      until: number
    ) => Effect.Effect<Option.Option<ClaimedTypedData>>
    /**
     * `reopen`: an `executed` request whose transaction the chain lost (a chain restored from an older save) is
     * `executing` again under a new token until `until`, its result kept as the transaction in flight; `None` when it
     * is not `executed`.
     */
    readonly reopen: (salt: Uint256String, now: number, until: number) => Effect.Effect<Option.Option<ClaimedTypedData>>
    /** Up to `limit` requests `executing` under a lease that lapsed before `now` (epoch ms), oldest claim first. */
    readonly abandoned: (now: number, limit: number) => Effect.Effect<ReadonlyArray<AbandonedRequest>>
  }
>()("@svc/domain/eip712/IssuedRequestStore") {}
