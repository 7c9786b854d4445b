/**
 * The invite use cases (SPEC §4.11, §4.12; DESIGN §5b) as one service: invite members by e-mail, list invites, accept
 * or reject one with its e-mail's token, revoke, send again, and expire those left unanswered, each in a file of its
 * own (`CreateInvites.ts`, `AcceptInvite.ts`, ...). Each change is one unit of work: the invite, with the mails,
 * membership, user e-mail and events that go with it (decision 0080).
 */
import { Context, type Effect } from "effect"
import type { CompanyNotFound } from "../company/CompanyNotFound.ts"
import type { CompanyRepository } from "../company/CompanyRepository.ts"
import type { EventOutbox } from "../event/EventOutbox.ts"
import type { CompanyId, IdGenerator, InviteId, TeamId } from "../Ids.ts"
import type { MailOutbox } from "../mail/MailOutbox.ts"
import type { InsufficientPermissions } from "../membership/MembershipErrors.ts"
import type { MembershipRepository } from "../membership/MembershipRepository.ts"
import type { TeamAccess } from "../membership/TeamAccess.ts"
import type { Randomness } from "../Randomness.ts"
import type { IllegalTransition } from "../StateMachine.ts"
import type { TeamNotFound } from "../team/TeamNotFound.ts"
import type { TeamRepository } from "../team/TeamRepository.ts"
import type { UnitOfWork } from "../UnitOfWork.ts"
import { useCaseLayer } from "../UseCases.ts"
import type { Caller } from "../user/Caller.ts"
import type { UserRepository } from "../user/UserRepository.ts"
import { acceptInvite } from "./AcceptInvite.ts"
import { createInvites } from "./CreateInvites.ts"
import { expireInvites } from "./ExpireInvites.ts"
import type { InvitePreview, InviteView } from "./Invite.ts"
import type { AlreadyTeamMember, InviteClosed } from "./InviteErrors.ts"
import type { InviteNotFound, InviteRepository } from "./InviteRepository.ts"
import type { AnswerInviteRequest, CreateInvitesRequest } from "./InviteRequests.ts"
import type { InviteSettings } from "./InviteSettings.ts"
import type { InviteOutcome } from "./InviteSteps.ts"
import { listInvites } from "./ListInvites.ts"
import { previewInvite } from "./PreviewInvite.ts"
import { rejectInvite } from "./RejectInvite.ts"
import { resendInvite } from "./ResendInvite.ts"
import { revokeInvite } from "./RevokeInvite.ts"

export { inviteMailOf } from "./InviteMail.ts"
export type { InviteOutcome } from "./InviteSteps.ts"

/** What the invite use cases run on. */
type InvitePorts =
  | TeamAccess
  | InviteRepository
  | MailOutbox
  | TeamRepository
  | CompanyRepository
  | MembershipRepository
  | UserRepository
  | InviteSettings
  | IdGenerator
  | Randomness
  | EventOutbox
  | UnitOfWork

/** Invites, for a caller. */
export class Invites extends Context.Service<
  Invites,
  {
    /** One pending invite and one mail per e-mail, for a `team_admin`; answers the invites' ids in request order. */
    readonly create: (
      caller: Caller,
      body: CreateInvitesRequest
    ) => Effect.Effect<{ readonly nanoids: ReadonlyArray<InviteId> }, TeamNotFound | InsufficientPermissions>
    /** The pending invites of a team, or of every team of a company the caller manages (SPEC §2.6), newest first. */
    readonly list: (
      caller: Caller,
      nanoid: TeamId | CompanyId
    ) => Effect.Effect<ReadonlyArray<InviteView>, TeamNotFound | CompanyNotFound | InsufficientPermissions>
    /**
     * The signed-in invitee accepts: a member with the invite's role, the invite's e-mail recorded on the user. A
     * manager invite is accepted by its signed grant instead (`IllegalTransition`).
     */
    readonly accept: (
      caller: Caller,
      body: AnswerInviteRequest
    ) => Effect.Effect<
      InviteOutcome,
      InviteNotFound | InviteClosed | TeamNotFound | AlreadyTeamMember | IllegalTransition
    >
    /** The signed-in invitee declines (a manager invite: signed in with the wallet it grants to). */
    readonly reject: (
      caller: Caller,
      body: AnswerInviteRequest
    ) => Effect.Effect<InviteOutcome, InviteNotFound | InviteClosed>
    /** A team admin withdraws a pending invite. */
    readonly revoke: (caller: Caller, invite: InviteId) => Effect.Effect<InviteOutcome, InviteNotFound | InviteClosed>
    /** A team admin sends a pending invite again: a new token (the old link stops working) and a new lifetime. */
    readonly resend: (
      caller: Caller,
      invite: InviteId
    ) => Effect.Effect<InviteOutcome, InviteNotFound | InviteClosed | IllegalTransition>
    /**
     * What the link of an invite mail opens, without signing in: the invite the token opens (whatever its state), or
     * `InviteNotFound` for a wrong token or an invite without one (the state stays hidden).
     */
    readonly preview: (invite: InviteId, token: string) => Effect.Effect<InvitePreview, InviteNotFound>
    /** Expires up to `limit` pending invites whose lifetime passed, each with its `invite.expired`; answers how many. */
    readonly expireDue: (limit?: number) => Effect.Effect<number>
  }
>()("@svc/domain/invite/Invites") {
  /** On the repositories, `TeamAccess`, `IdGenerator`, `Randomness` and `InviteSettings`. */
  static readonly layer = useCaseLayer<InvitePorts>()(Invites, (run) => ({
    create: (caller, body) => run(createInvites(caller, body)),
    list: (caller, nanoid) => run(listInvites(caller, nanoid)),
    accept: (caller, body) => run(acceptInvite(caller, body)),
    reject: (caller, body) => run(rejectInvite(caller, body)),
    revoke: (caller, id) => run(revokeInvite(caller, id)),
    resend: (caller, id) => run(resendInvite(caller, id)),
    preview: (id, token) => run(previewInvite(id, token)),
    expireDue: (limit = 100) => run(expireInvites(limit))
  }))
}
