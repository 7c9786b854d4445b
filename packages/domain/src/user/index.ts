/**
 * Users: schemas, the caller of a use case, the team users list, a user's svc account and the repository port.
 */
export type { Caller } from "./Caller.ts"
export {
  EmailFilter,
  maxEmails,
  type PageRequest,
  Pagination,
  pageRequest,
  pageSize,
  pagination,
  pagingReach,
  TeamUser,
  toTeamUser
} from "./TeamUser.ts"
export { Certification, displayNameOf, emptyPostalAddress, newUser, Onboarding, User } from "./User.ts"
export { userAccountOf } from "./UserAccount.ts"
export { UserNotFound } from "./UserNotFound.ts"
export { UserRepository, WalletTaken } from "./UserRepository.ts"
