/**
 * The invites port: invites, and the mails and memberships that are written in the same step as them.
 */
import { Context, type Effect, Schema } from "effect"
import type { ErrorCode } from "../errors/ErrorCatalog.ts"
import type { InviteId, TeamId, UserId } from "../Ids.ts"
import type { Mail } from "../mail/Mail.ts"
import type { Membership } from "../membership/Membership.ts"
import type { AlreadyMember } from "../membership/MembershipRepository.ts"
import type { StaleState } from "../StaleState.ts"
import type { Invite } from "./Invite.ts"
import type { InviteState } from "./InviteMachine.ts"

/** No invite has this id (or the caller may not know of it). */
export class InviteNotFound extends Schema.TaggedError<InviteNotFound>()("InviteNotFound", { nanoid: Schema.String }) {
  /** The API error code. */
  get errorCode(): ErrorCode {
    return "INVITE_NOT_FOUND"
  }
  override get message(): string {
    return "Invite not found"
  }
}

/** What a transition writes besides the invite's state, all in the same atomic step. */
export interface InviteChange {
  /** Fields of the invite to change (the new token of a resend, who accepted, when). */
  readonly patch?: Partial<Pick<Invite, "user_nanoid" | "updated_at" | "token_hash" | "expires_at">>
  /** The stored token hash must still be this one (the invitee's token was checked against a stale read). */
  readonly tokenHash?: string
  /** The membership an accepted invite creates; an existing one for the same (team, user) fails `AlreadyMember`. */
  readonly membership?: Membership
  /** The e-mail to record on the user who accepted. */
  readonly userEmail?: { readonly user: UserId; readonly email: string }
  readonly mails?: ReadonlyArray<Mail>
}

/**
 * Stored invites. Implementations must: insert invites with their mails all-or-nothing; make `transition` one atomic
 * step that applies only while the invite is in state `from` (and has token hash `tokenHash` when given), else
 * `StaleState`, writing the change's membership, user e-mail and mails with it or not at all; list newest first.
 * Storage failures are defects. The events of a transition are the use case's, appended in the same `UnitOfWork`.
 */
export class InviteRepository extends Context.Service<
  InviteRepository,
  {
    readonly create: (invites: ReadonlyArray<Invite>, mails: ReadonlyArray<Mail>) => Effect.Effect<void>
    readonly findById: (id: InviteId) => Effect.Effect<Invite, InviteNotFound>
    /** The invites of these teams in the given states (all states when empty), newest first. */
    readonly listByTeams: (
      teams: ReadonlyArray<TeamId>,
      states: ReadonlyArray<InviteState>
    ) => Effect.Effect<ReadonlyArray<Invite>>
    /** Pending invites whose `expires_at` is at or before `now` (ISO), oldest first, for the expiry sweep. */
    readonly listExpired: (now: string, limit: number) => Effect.Effect<ReadonlyArray<Invite>>
    readonly transition: (
      id: InviteId,
      from: InviteState,
      to: InviteState,
      change: InviteChange
    ) => Effect.Effect<Invite, InviteNotFound | StaleState | AlreadyMember>
  }
>()("@svc/domain/invite/InviteRepository") {}
