/**
 * Teams: schemas, route bodies, settings, the repository ports, balances, and the team and settings use cases
 * (`Teams`, `Settings`).
 */

export { accountCreationWait, createTeam } from "./CreateTeam.ts"
export { deleteTeam } from "./DeleteTeam.ts"
export { getMemberSettings } from "./GetMemberSettings.ts"
export { getTeam } from "./GetTeam.ts"
export { getTeamSettings } from "./GetTeamSettings.ts"
export { listMyTeams } from "./ListMyTeams.ts"
export { listTeamUsers } from "./ListTeamUsers.ts"
export { Settings } from "./Settings.ts"
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
export { teamViewOf } from "./TeamView.ts"
export { updateMemberSettings } from "./UpdateMemberSettings.ts"
export { updateTeam } from "./UpdateTeam.ts"
export { updateTeamSettings } from "./UpdateTeamSettings.ts"
