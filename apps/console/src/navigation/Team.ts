/**
 * The team a page is about, and what the signed-in member may do there: the domain's own permission matrix
 * (`membership/Permission.ts`), so the console hides exactly what the API would refuse (and the API still decides).
 */
import { type Action, isAllowed } from "@svc/domain/membership"
import type { Role } from "../api/Types.ts"

/** The team of the page, the member's role in it, and who the member is. */
export interface TeamContext {
  readonly team: string
  readonly name: string
  readonly role: Role
  /** The signed-in member's user id. */
  readonly me: string | undefined
  /** Whether the member may take `action` here (`aboutSelf`: about themselves, for the actions a payee may take so). */
  readonly may: (action: Action, aboutSelf?: boolean) => boolean
}

/** The context of `team` for a member with `role`. */
export const teamContext = (
  team: { readonly nanoid: string; readonly name: string; readonly role: string },
  me: string | undefined
): TeamContext => ({
  team: team.nanoid,
  name: team.name,
  role: team.role as Role,
  me,
  may: (action, aboutSelf = false) => isAllowed(team.role as Role, action, aboutSelf)
})
