/**
 * Blocking a member (issue 39, decision 0107): a blocked member stays listed, cannot be paid and cannot act for the
 * team; their roles on chain are revoked on the way in. The block is a machine of its own beside the membership.
 */
import { Schema } from "effect"
import { UserId } from "../Ids.ts"
import { makeStateMachine } from "../StateMachine.ts"
import { PlainText } from "../Text.ts"

/**
 * The block machine. `active` is a member without a block.
 *
 * - `begin`: the block is asked while the member may hold authority on chain: it is marked (`blocking`) before the
 *   chain is asked to revoke it, so a process that dies in between leaves the mark for recovery.
 * - `confirm`: the chain answered (or had nothing to revoke): the member is `blocked`, with `team.member_blocked`.
 * - `block`: blocked at once, where there is no chain step (no chain, or no team account yet).
 * - `abandon`: the chain refused before anything was sent; the member is as before.
 * - `unblock`: a team admin lifts the block, with `team.member_blocked` (`blocked: false`). Roles are not given back.
 */
export const MemberBlockMachine = makeStateMachine({
  name: "member block",
  states: ["active", "blocking", "blocked"],
  triggers: ["begin", "confirm", "block", "abandon", "unblock"],
  transitions: {
    active: { begin: "blocking", block: "blocked" },
    blocking: { confirm: "blocked", abandon: "active" },
    blocked: { unblock: "active" }
  }
})

/** Where a member's block stands. */
export type BlockState = typeof MemberBlockMachine.State.Type

/** Why a member is blocked, as a team admin wrote it: up to 500 characters, one line. */
export const BlockReason = PlainText({ max: 500, what: "a reason" })

/**
 * A member's block as stored on the membership: its state, since when (ISO 8601, when it was asked), the reason and
 * who asked (`null`: the team's `block_duplicates` setting, decision 0109).
 */
export const MemberBlock = Schema.Struct({
  state: Schema.Literals(["blocking", "blocked"]),
  since: Schema.String,
  reason: Schema.String,
  by: Schema.NullOr(UserId)
})
export type MemberBlock = typeof MemberBlock.Type

/** The state of a membership's block: `active` when it has none. */
export const blockStateOf = (membership: { readonly block?: MemberBlock | undefined }): BlockState =>
  membership.block?.state ?? "active"

/** `PUT /v2/teams/{team_nanoid}/member/{user_nanoid}/block`: block or unblock, and why. */
export const BlockMemberBody = Schema.Struct({
  blocked: Schema.Boolean,
  reason: Schema.optionalKey(BlockReason)
})
export type BlockMemberBody = typeof BlockMemberBody.Type

/** What the block route answers: the member's block as it now stands. */
export const MemberBlockView = Schema.Struct({
  team_nanoid: Schema.String,
  user_nanoid: Schema.String,
  blocked: Schema.Boolean,
  /** When the block was asked; `null` when not blocked. */
  blocked_since: Schema.NullOr(Schema.String),
  reason: Schema.String
})
export type MemberBlockView = typeof MemberBlockView.Type
