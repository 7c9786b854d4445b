/**
 * The member use cases (SPEC §4.4) as one service: a member's summary, removing a member (with their authority on
 * chain, decision 0020) and blocking or unblocking one (decision 0107), each in a file of its own.
 */
import { Context, type Effect, Layer } from "effect"
import type { CompanyNotFound } from "../company/CompanyNotFound.ts"
import type { CompanyRepository } from "../company/CompanyRepository.ts"
import type { EventOutbox } from "../event/EventOutbox.ts"
import type { IdGenerator, TeamId, UserId } from "../Ids.ts"
import type { PaymentLedger } from "../payment/PaymentLedger.ts"
import type { Randomness } from "../Randomness.ts"
import type { TeamRepository } from "../team/TeamRepository.ts"
import type { TeamError } from "../team/Teams.ts"
import type { UnitOfWork } from "../UnitOfWork.ts"
import { useCaseLayer } from "../UseCases.ts"
import type { Caller } from "../user/Caller.ts"
import type { UserNotFound } from "../user/UserNotFound.ts"
import type { UserRepository } from "../user/UserRepository.ts"
import { setMemberBlock } from "./BlockMember.ts"
import { getMemberSummary } from "./GetMemberSummary.ts"
import type { BlockMemberBody, MemberBlockView } from "./MemberBlock.ts"
import type { MemberSummary } from "./MemberSummary.ts"
import type {
  AuthorityNotRevoked,
  BlockInProgress,
  BlockNotConfirmed,
  LastAdmin,
  LastOnChainAdmin,
  MemberNotFound
} from "./MembershipErrors.ts"
import type { MembershipRepository } from "./MembershipRepository.ts"
import { removeMember } from "./RemoveMember.ts"
import { TeamAccess } from "./TeamAccess.ts"

type MemberPorts =
  | TeamAccess
  | MembershipRepository
  | UserRepository
  | CompanyRepository
  | TeamRepository
  | PaymentLedger
  | IdGenerator
  | Randomness
  | EventOutbox
  | UnitOfWork

/** A team's members, for a caller. */
export class Members extends Context.Service<
  Members,
  {
    readonly summary: (
      caller: Caller,
      team: TeamId,
      user: UserId
    ) => Effect.Effect<MemberSummary, TeamError | MemberNotFound | UserNotFound | CompanyNotFound>
    /** Removes a member; see `removeMember`. */
    readonly remove: (
      caller: Caller,
      team: TeamId,
      user: UserId
    ) => Effect.Effect<
      { readonly team_nanoid: TeamId; readonly user_nanoid: UserId; readonly removed: true },
      TeamError | MemberNotFound | LastAdmin | LastOnChainAdmin | AuthorityNotRevoked
    >
    /** Blocks or unblocks a member; see `setMemberBlock`. */
    readonly block: (
      caller: Caller,
      team: TeamId,
      user: UserId,
      body: BlockMemberBody
    ) => Effect.Effect<
      MemberBlockView,
      | TeamError
      | MemberNotFound
      | LastAdmin
      | LastOnChainAdmin
      | AuthorityNotRevoked
      | BlockInProgress
      | BlockNotConfirmed
    >
  }
>()("@svc/domain/membership/Members") {
  /** On the repositories, the payments ledger (intents canceled with a member), ids and randomness (events). */
  static readonly layer = useCaseLayer<MemberPorts>()(Members, (run) => ({
    summary: (caller, team, user) => run(getMemberSummary(caller, team, user)),
    remove: (caller, team, user) => run(removeMember(caller, team, user)),
    block: (caller, team, user, body) => run(setMemberBlock(caller, team, user, body))
  })).pipe(Layer.provide(TeamAccess.layer))
}
