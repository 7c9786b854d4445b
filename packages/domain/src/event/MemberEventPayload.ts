/**
 * Payload shapes of the member events of issue 39: a member blocked or unblocked, a payout address changed, and two
 * users found sharing an address (decisions 0107 to 0109), with the samples test deliveries send.
 */
import { Schema } from "effect"

/** `member` of `team.member_added` and `team.member_removed`: the membership, and who it is. */
export const MemberEventPayload = Schema.Struct({
  relationship_nanoid: Schema.String,
  team_nanoid: Schema.String,
  user_nanoid: Schema.String,
  email: Schema.String,
  role: Schema.String,
  joined_at: Schema.String
})
export type MemberEventPayload = typeof MemberEventPayload.Type

/**
 * `member` of `team.member_blocked`: the membership, whether it is now blocked (`false` when it was unblocked), since
 * when, why, and who did it (`null`: the team's `block_duplicates` setting).
 */
export const MemberBlockedEventPayload = Schema.Struct({
  ...MemberEventPayload.fields,
  blocked: Schema.Boolean,
  blocked_since: Schema.NullOr(Schema.String),
  reason: Schema.String,
  changed_by: Schema.NullOr(Schema.String)
})
export type MemberBlockedEventPayload = typeof MemberBlockedEventPayload.Type

/**
 * `withdraw_account` of `withdraw_account.updated` (beyond the spec): a member's payout address changed, or a change
 * was reported as not theirs and undone (`change: "reported"`). `address` is where the member is paid from the next
 * typed data on; `null` means their own svc account.
 */
export const WithdrawAccountEventPayload = Schema.Struct({
  nanoid: Schema.String,
  user_nanoid: Schema.String,
  address: Schema.NullOr(Schema.String),
  previous_address: Schema.NullOr(Schema.String),
  change: Schema.Literals(["set", "reported"]),
  changed_at: Schema.String
})
export type WithdrawAccountEventPayload = typeof WithdrawAccountEventPayload.Type

/**
 * `withdraw_account` of `withdraw_account.duplicated_detected`: two users share `address` (one's wallet or payout
 * address is the other's), the older account first; sent once per pair.
 */
export const DuplicateAccountEventPayload = Schema.Struct({
  address: Schema.String,
  user_nanoids: Schema.Array(Schema.String),
  newer_user_nanoid: Schema.String,
  detected_at: Schema.String
})
export type DuplicateAccountEventPayload = typeof DuplicateAccountEventPayload.Type

const sampleTime = "2026-01-15T10:30:00.000Z"
const sampleMember: MemberEventPayload = {
  relationship_nanoid: "re-sample000001",
  team_nanoid: "te-sample000001",
  user_nanoid: "us-sample000001",
  email: "ada@example.com",
  role: "team_employee",
  joined_at: sampleTime
}

/** The sample payloads of the member kinds, for test deliveries; `undefined` for another kind. */
export const sampleMemberPayloadOf = (type: string): Record<string, unknown> | undefined => {
  switch (type) {
    case "team.member_added":
    case "team.member_removed":
      return sampleMember
    case "team.member_blocked":
      return {
        ...sampleMember,
        blocked: true,
        blocked_since: sampleTime,
        reason: "Paid twice under two accounts",
        changed_by: "us-sample000002"
      } satisfies MemberBlockedEventPayload
    case "withdraw_account.updated":
      return {
        nanoid: "wa-sample000001",
        user_nanoid: "us-sample000001",
        address: "0x2222222222222222222222222222222222222222",
        previous_address: null,
        change: "set",
        changed_at: sampleTime
      } satisfies WithdrawAccountEventPayload
    case "withdraw_account.duplicated_detected":
      return {
        address: "0x2222222222222222222222222222222222222222",
        user_nanoids: ["us-sample000001", "us-sample000003"],
        newer_user_nanoid: "us-sample000003",
        detected_at: sampleTime
      } satisfies DuplicateAccountEventPayload
    default:
      return undefined
  }
}
