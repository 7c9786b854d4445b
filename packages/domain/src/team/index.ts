/**
 * Teams: schemas, route bodies, settings and the repository ports.
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
  UpdateTeamBody
} from "./Team.ts"
export { type TeamChanges, TeamRepository } from "./TeamRepository.ts"
export {
  defaultMemberSettings,
  defaultTeamSettings,
  MemberSettings,
  TeamSettings,
  UpdateMemberSettingsBody,
  UpdateTeamSettingsBody
} from "./TeamSettings.ts"
