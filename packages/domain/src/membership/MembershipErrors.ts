/**
 * Why a team action is refused: the caller's role, a member that is not one, the team's last admin.
 */
import { Schema } from "effect"
import { type ErrorCode, messageField } from "../errors/ErrorCatalog.ts"

/** The caller is not a member of the team, or their role does not allow the action. */
export class InsufficientPermissions extends Schema.TaggedError<InsufficientPermissions>()("InsufficientPermissions", {
  message: messageField("INSUFFICIENT_PERMISSIONS")
}) {
  /** The API error code. */
  get errorCode(): ErrorCode {
    return "INSUFFICIENT_PERMISSIONS"
  }
}

/** The user named in the path is not a member of the team. */
export class MemberNotFound extends Schema.TaggedError<MemberNotFound>()("MemberNotFound", {
  team: Schema.String,
  user: Schema.String
}) {
  /** The API error code. */
  get errorCode(): ErrorCode {
    return "MEMBER_NOT_FOUND"
  }
}

/** Removing this member would leave the team without a `team_admin`. */
export class LastAdmin extends Schema.TaggedError<LastAdmin>()("LastAdmin", { team: Schema.String }) {
  /** The API error code. */
  get errorCode(): ErrorCode {
    return "LAST_ADMIN"
  }
}

/**
 * The member owns the team's account and no other `team_admin` of the team holds `team_admin` on chain: revoking
 * the ownership would leave nobody able to pay from the account. Grant an admin by a manager invite first.
 */
export class LastOnChainAdmin extends Schema.TaggedError<LastOnChainAdmin>()("LastOnChainAdmin", {
  team: Schema.String
}) {
  /** The API error code. */
  get errorCode(): ErrorCode {
    return "LAST_ADMIN"
  }
  override get message(): string {
    return "The member owns the team's account and no other team_admin holds the role on chain; grant one by a manager invite first"
  }
}

/**
 * The member's authority on the team's account could not be revoked on chain (decision 0020), so the member was not
 * removed: `unavailable` when the node did not answer (retry later), else the chain refused (`reason`, a contract
 * error such as `NotOperator` when the relayer key is not an operator of the forwarder). `maybeSent` when the
 * revocation was sent and its outcome is unknown: the removal stays begun, and recovery finishes it (decision 0094).
 */
export class AuthorityNotRevoked extends Schema.TaggedError<AuthorityNotRevoked>()("AuthorityNotRevoked", {
  team: Schema.String,
  wallet: Schema.String,
  unavailable: Schema.Boolean,
  reason: Schema.String,
  maybeSent: Schema.optionalKey(Schema.Boolean)
}) {
  /** The API error code. */
  get errorCode(): ErrorCode {
    return this.unavailable ? "SERVICE_UNAVAILABLE" : "INTERNAL_ERROR"
  }
  override get message(): string {
    if (this.maybeSent === true) {
      return "The member's revocation was sent and its outcome is not known yet; the removal finishes by itself"
    }
    return this.unavailable
      ? "The chain is unavailable, so the member's authority on chain could not be revoked; nothing changed, retry later"
      : `The chain refused to revoke the member's authority (${this.reason}); nothing changed`
  }
}

/**
 * A payment names a member who is blocked in the team (decision 0107): nothing is issued or executed. Unblocking them
 * lets them be paid again.
 */
export class MemberBlocked extends Schema.TaggedError<MemberBlocked>()("MemberBlocked", {
  team: Schema.String,
  user: Schema.String
}) {
  /** The API error code. */
  get errorCode(): ErrorCode {
    return "MEMBER_BLOCKED"
  }
  override get message(): string {
    return `${this.user} is blocked in this team and cannot be paid until a team admin unblocks them`
  }
}

/** A block is being completed on chain: the member cannot be unblocked until it is (decision 0107). */
export class BlockInProgress extends Schema.TaggedError<BlockInProgress>()("BlockInProgress", {
  team: Schema.String,
  user: Schema.String
}) {
  /** The API error code. */
  get errorCode(): ErrorCode {
    return "INVALID_STATE_TRANSITION"
  }
  override get message(): string {
    return `The block of ${this.user} is being completed on chain; unblock them once it is`
  }
}

/**
 * The chain did not answer while a member's roles were being revoked for their block (decision 0107): the member
 * stays marked, so neither paid nor acting for the team, and recovery finishes the block once the chain answers.
 */
export class BlockNotConfirmed extends Schema.TaggedError<BlockNotConfirmed>()("BlockNotConfirmed", {
  team: Schema.String,
  user: Schema.String,
  reason: Schema.String
}) {
  /** The API error code. */
  get errorCode(): ErrorCode {
    return "SERVICE_UNAVAILABLE"
  }
  override get message(): string {
    return `The chain did not answer (${this.reason}); ${this.user} is blocked in the API and the revocation of their roles on chain finishes by itself`
  }
}
