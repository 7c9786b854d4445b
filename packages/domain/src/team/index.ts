/**
 * Teams: schemas, route bodies, settings, the repository ports, balances and the team use cases (`Teams`).
 */
export { SettingsRepository } from "./SettingsRepository.ts"
export {
  CreatedTeam,
  CreateTeamBody,
  Team,
  TeamAdministrator,
  TeamDescription,
  TeamListItem,
  TeamName,
  TeamView,
  teamAccountOf,
  UpdateTeamBody
} from "./Team.ts"
export { TeamBalances } from "./TeamBalances.ts"
export { TeamNotEmpty, TeamNotFound } from "./TeamNotFound.ts"
export { type TeamChanges, TeamRepository } from "./TeamRepository.ts"
export {
  defaultMemberSettings,
  defaultTeamSettings,
  MemberSettings,
  TeamSettings,
  UpdateMemberSettingsBody,
  UpdateTeamSettingsBody
} from "./TeamSettings.ts"
export { type TeamError, Teams, type TeamUsersRequest } from "./Teams.ts"
