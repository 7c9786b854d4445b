/**
 * The invites port.
 */
import { Context, type Effect, Schema } from "effect"
import type { ErrorCode } from "../errors/ErrorCatalog.ts"
import type { InviteId, TeamId } from "../Ids.ts"
import type { StaleState } from "../StaleState.ts"
import type { Invite } from "./Invite.ts"
import type { InviteState } from "./InviteMachine.ts"

/** No invite has this id. */
export class InviteNotFound extends Schema.TaggedError<InviteNotFound>()("InviteNotFound", { nanoid: Schema.String }) {
  /** The API error code. */
  get errorCode(): ErrorCode {
    return "INVITE_NOT_FOUND"
  }
}

/**
 * Stored invites. Implementations must: insert all-or-nothing with unique ids; make `transition` one atomic
 * conditional update (only from the stored state `from`, else `StaleState`); list newest first.
 */
export class InviteRepository extends Context.Service<
  InviteRepository,
  {
    readonly insertMany: (invites: readonly [Invite, ...Array<Invite>]) => Effect.Effect<void>
    readonly findById: (id: InviteId) => Effect.Effect<Invite, InviteNotFound>
    /** The invites of a team in the given states (all states when empty). */
    readonly listByTeam: (team: TeamId, states: ReadonlyArray<InviteState>) => Effect.Effect<ReadonlyArray<Invite>>
    /** Pending invites whose `expires_at` is at or before `now` (ISO), for the expiry sweep. */
    readonly listExpired: (now: string, limit: number) => Effect.Effect<ReadonlyArray<Invite>>
    readonly transition: (
      id: InviteId,
      from: InviteState,
      to: InviteState,
      patch?: Partial<Pick<Invite, "user_nanoid" | "updated_at">>
    ) => Effect.Effect<Invite, InviteNotFound | StaleState>
  }
>()("@svc/domain/invite/InviteRepository") {}
