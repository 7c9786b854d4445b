/**
 * Memberships: roles, the permission matrix, the access check of team actions, the member summary, the repository
 * port, and the member use cases (`Members`).
 */

export { blockAutomatically, blockGrace, blockViewOf, finishPendingBlocks, setMemberBlock } from "./BlockMember.ts"
export { getMemberSummary } from "./GetMemberSummary.ts"
export {
  BlockMemberBody,
  BlockReason,
  type BlockState,
  blockStateOf,
  MemberBlock,
  MemberBlockMachine,
  MemberBlockView
} from "./MemberBlock.ts"
export { blockEventOf, memberEventOf } from "./MemberEvents.ts"
export { memberOf } from "./MemberOf.ts"
export { MemberSummary, PaySchedule, toMemberSummary } from "./MemberSummary.ts"
export { Members } from "./Members.ts"
export { Membership } from "./Membership.ts"
export {
  AuthorityNotRevoked,
  BlockInProgress,
  BlockNotConfirmed,
  InsufficientPermissions,
  LastAdmin,
  LastOnChainAdmin,
  MemberBlocked,
  MemberNotFound
} from "./MembershipErrors.ts"
export { AlreadyMember, type MemberPage, MembershipRepository } from "./MembershipRepository.ts"
export { type Action, isAllowed, Permissions } from "./Permission.ts"
export { removeMember, revokeOnChain } from "./RemoveMember.ts"
export { isPayable, ManagerRole, Role } from "./Role.ts"
export { TeamAccess, type TeamGrant } from "./TeamAccess.ts"
