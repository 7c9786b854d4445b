/**
 * Users: schemas, the team users list and the repository port.
 */
export {
  maxEmails,
  type PageRequest,
  Pagination,
  pageRequest,
  pageSize,
  pagination,
  TeamUser,
  toTeamUser
} from "./TeamUser.ts"
export { Address, Certification, emptyAddress, newUser, Onboarding, User, WalletAddress } from "./User.ts"
export { UserRepository, WalletTaken } from "./UserRepository.ts"
