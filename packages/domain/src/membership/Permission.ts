/**
 * Who may do what in a team: the authorisation matrix (docs/authorization.md renders the same table).
 *
 * An action names what a route does to a team. `self` marks actions a payable member may also take about
 * themselves (their own summary and settings, their own invoices). A user with no membership in the team may do
 * nothing there.
 */
import type { Role } from "./Role.ts"

const managers = ["team_admin", "team_finance_admin", "team_viewer"] as const
const everyone = [...managers, "team_employee", "team_contractor"] as const

/** Every team action and the roles allowed to take it. */
export const Permissions = {
  "team.read": { roles: everyone, self: false },
  "team.update": { roles: ["team_admin"], self: false },
  "team.delete": { roles: ["team_admin"], self: false },
  "team.create": { roles: ["team_admin"], self: false },
  "team.users.list": { roles: managers, self: false },
  "member.summary": { roles: managers, self: true },
  "member.remove": { roles: ["team_admin"], self: false },
  "member.block": { roles: ["team_admin"], self: false },
  "team.settings.read": { roles: managers, self: false },
  "team.settings.update": { roles: ["team_admin"], self: false },
  "member.settings.read": { roles: managers, self: true },
  "member.settings.update": { roles: ["team_admin", "team_finance_admin"], self: false },
  "payments.read": { roles: managers, self: false },
  "payments.receivable": { roles: everyone, self: false },
  "payments.create": { roles: ["team_admin", "team_finance_admin"], self: false },
  "payments.execute": { roles: ["team_admin", "team_finance_admin"], self: false },
  "balance.read": { roles: managers, self: false },
  "invites.read": { roles: managers, self: false },
  "invites.create": { roles: ["team_admin"], self: false },
  "invites.manager": { roles: ["team_admin"], self: false },
  "webhooks.manage": { roles: ["team_admin"], self: false },
  "invoices.create": { roles: ["team_employee", "team_contractor"], self: false },
  "invoices.read": { roles: managers, self: true },
  "invoices.reject": { roles: ["team_admin", "team_finance_admin"], self: false }
} as const satisfies Record<string, { readonly roles: ReadonlyArray<Role>; readonly self: boolean }>

/** A team action. */
export type Action = keyof typeof Permissions

/** Whether `role` may take `action`; `aboutSelf` when the action's subject is the caller. */
export const isAllowed = (role: Role, action: Action, aboutSelf = false): boolean => {
  const rule = Permissions[action]
  return (rule.roles as ReadonlyArray<Role>).includes(role) || (rule.self && aboutSelf)
}
