/**
 * Team roles (DESIGN §5, reference): what a user is to a team. A user holds at most one role per team.
 */
import { Schema } from "effect"

/** Every team role. Managers administer the team; employees and contractors are paid by it. */
export const Role = Schema.Literals([
  "team_admin",
  "team_finance_admin",
  "team_viewer",
  "team_employee",
  "team_contractor"
])
export type Role = typeof Role.Type

/** The roles that may be invited as managers (`POST /v2/invites/manager`). */
export const ManagerRole = Schema.Literals(["team_admin", "team_finance_admin", "team_viewer"])
export type ManagerRole = typeof ManagerRole.Type

/** Whether a role is paid by the team: employees and contractors are payable, managers are not. */
export const isPayable = (role: Role): boolean => role === "team_employee" || role === "team_contractor"
