/**
 * The invites port: stored invites and their state changes. The mails, memberships and user e-mails that go with them
 * are written by the use case through their own ports, in the same `UnitOfWork` (decision 0080).
 */
import { Context, type Effect, Schema } from "effect"
import type { ErrorCode } from "../errors/ErrorCatalog.ts"
import type { InviteId, TeamId } from "../Ids.ts"
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

/** What a transition changes of the invite besides its state, in the same atomic step. */
export interface InviteChange {
  /** Fields of the invite to change (the new token of a resend, who accepted, when). */
  readonly patch?: Partial<Pick<Invite, "user_nanoid" | "updated_at" | "token_hash" | "expires_at">>
  /** The stored token hash must still be this one (the invitee's token was checked against a stale read). */
  readonly tokenHash?: string
}

/**
 * Stored invites, and nothing else. Implementations must: insert a batch of invites all-or-nothing; make `transition`
 * one atomic step that applies only while the invite is in state `from` (and has token hash `tokenHash` when given),
 * else `StaleState`; list newest first; join the caller's `UnitOfWork`, so that what the use case writes with them (the
 * mails of `MailOutbox.enqueue`, an acceptance's membership and user e-mail, the events) commits with them or not at
 * all. Storage failures are defects.
 */
export class InviteRepository extends Context.Service<
  InviteRepository,
  {
    readonly create: (invites: ReadonlyArray<Invite>) => Effect.Effect<void>
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
    ) => Effect.Effect<Invite, InviteNotFound | StaleState>
  }
>()("@svc/domain/invite/InviteRepository") {}
