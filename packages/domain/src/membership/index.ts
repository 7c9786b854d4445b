/**
 * Memberships: roles, the permission matrix, the access check of team actions, the member summary and the
 * repository port.
 */

export { memberEventOf } from "./MemberEvents.ts"
export { MemberSummary, PaySchedule, toMemberSummary } from "./MemberSummary.ts"
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
export { isPayable, ManagerRole, Role } from "./Role.ts"
export { TeamAccess, type TeamGrant } from "./TeamAccess.ts"
