/**
 * A membership: one user's role in one team (the spec's "relationship").
 */
import { Schema } from "effect"
import { MembershipId, TeamId, UserId } from "../Ids.ts"
import { MemberBlock } from "./MemberBlock.ts"
import { Role } from "./Role.ts"

/**
 * A stored membership. `email` is the member's e-mail, lower-cased, kept here so a team's list filters in one query.
 * `removal_since` (epoch ms) is set while its removal runs: the chain first, then the membership (decision 0094); a
 * member whose removal began has the authority the chain still shows, and recovery finishes a removal left so.
 * `block` is there while the member is blocked, or being blocked (decision 0107).
 */
export const Membership = Schema.Struct({
  nanoid: MembershipId,
  team_nanoid: TeamId,
  user_nanoid: UserId,
  role: Role,
  email: Schema.String,
  created_at: Schema.String,
  removal_since: Schema.optionalKey(Schema.Number),
  block: Schema.optionalKey(MemberBlock)
})
export type Membership = typeof Membership.Type
