/**
 * Why an invite cannot be answered: it was answered already, revoked, or it expired. Each changes nothing.
 */
import { Schema } from "effect"
import type { ErrorCode } from "../errors/ErrorCatalog.ts"

/** The invite was accepted or rejected already: its token was used. */
export class InviteAnswered extends Schema.TaggedError<InviteAnswered>()("InviteAnswered", {
  nanoid: Schema.String,
  state: Schema.String
}) {
  /** The API error code. */
  get errorCode(): ErrorCode {
    return "INVITE_ALREADY_ANSWERED"
  }
  override get message(): string {
    return `The invite was already ${this.state}; its link works once`
  }
}

/** A team admin revoked the invite. */
export class InviteRevoked extends Schema.TaggedError<InviteRevoked>()("InviteRevoked", { nanoid: Schema.String }) {
  /** The API error code. */
  get errorCode(): ErrorCode {
    return "INVITE_REVOKED"
  }
  override get message(): string {
    return "The invite was revoked"
  }
}

/** The invite's lifetime passed unanswered. */
export class InviteExpired extends Schema.TaggedError<InviteExpired>()("InviteExpired", { nanoid: Schema.String }) {
  /** The API error code. */
  get errorCode(): ErrorCode {
    return "INVITE_EXPIRED"
  }
  override get message(): string {
    return "The invite has expired; ask for a new one"
  }
}

/** The caller is already a member of the invite's team. */
export class AlreadyTeamMember extends Schema.TaggedError<AlreadyTeamMember>()("AlreadyTeamMember", {
  team: Schema.String
}) {
  /** The API error code. */
  get errorCode(): ErrorCode {
    return "ROLE_CONFLICT"
  }
  override get message(): string {
    return "You are already a member of this team"
  }
}

/** An invite that can no longer be answered. */
export type InviteClosed = InviteAnswered | InviteRevoked | InviteExpired
