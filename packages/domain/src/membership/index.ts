/**
 * Memberships: roles, the permission matrix, the member summary and the repository port.
 */

export { MemberSummary, PaySchedule, toMemberSummary } from "./MemberSummary.ts"
export { Membership } from "./Membership.ts"
export { AlreadyMember, type MemberPage, MembershipRepository } from "./MembershipRepository.ts"
export { type Action, isAllowed, Permissions } from "./Permission.ts"
export { isPayable, ManagerRole, Role } from "./Role.ts"
