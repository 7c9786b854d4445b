/**
 * The life of an invite: pending until the invitee answers, it expires, or the inviter revokes it.
 */
import { makeStateMachine } from "../StateMachine.ts"

/**
 * The invite machine. Every state but `pending` is terminal.
 *
 * - `accept`: the invitee accepted (for a manager invite, once the signed role grant executed).
 * - `reject`: the invitee declined.
 * - `expire`: the invite's lifetime passed unanswered.
 * - `revoke`: a team admin withdrew it.
 */
export const InviteMachine = makeStateMachine({
  name: "invite",
  states: ["pending", "accepted", "rejected", "expired", "revoked"],
  triggers: ["accept", "reject", "expire", "revoke"],
  transitions: {
    pending: { accept: "accepted", reject: "rejected", expire: "expired", revoke: "revoked" },
    accepted: {},
    rejected: {},
    expired: {},
    revoked: {}
  }
})

/** An invite's state. */
export type InviteState = typeof InviteMachine.State.Type
/** What moves an invite. */
export type InviteTrigger = typeof InviteMachine.Trigger.Type

/** The event each trigger publishes (SPEC §6), when it publishes one. */
export const inviteTriggerEvents = {
  accept: "invite.accepted",
  reject: "invite.rejected",
  expire: "invite.expired"
} as const satisfies Partial<Record<InviteTrigger, string>>
