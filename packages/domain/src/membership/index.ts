/**
 * Memberships: roles, the permission matrix, the access check of team actions, the member summary, the repository
 * port, and the member use cases (`Members`).
 */

export { getMemberSummary } from "./GetMemberSummary.ts"
export { memberEventOf } from "./MemberEvents.ts"
export { memberOf } from "./MemberOf.ts"
export { MemberSummary, PaySchedule, toMemberSummary } from "./MemberSummary.ts"
export { Members } from "./Members.ts"
export { Membership } from "./Membership.ts"
export {
  AuthorityNotRevoked,
  InsufficientPermissions,
  LastAdmin,
  LastOnChainAdmin,
  MemberNotFound
} from "./MembershipErrors.ts"
export { AlreadyMember, type MemberPage, MembershipRepository } from "./MembershipRepository.ts"
export { type Action, isAllowed, Permissions } from "./Permission.ts"
export { removeMember } from "./RemoveMember.ts"
export { isPayable, ManagerRole, Role } from "./Role.ts"
export { TeamAccess, type TeamGrant } from "./TeamAccess.ts"
