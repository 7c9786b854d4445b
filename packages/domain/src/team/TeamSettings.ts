/**
 * Team and member settings (SPEC §4.12; shapes are ours, recorded in docs/decisions).
 */
import { Schema } from "effect"
import { withDefault } from "../FieldDefault.ts"
import { isCharacterLength } from "../Text.ts"

const Reminder = Schema.Int.pipe(Schema.check(Schema.isBetween({ minimum: 0, maximum: 90 })))

/** A team's settings. */
export const TeamSettings = Schema.Struct({
  /** Whether `POST /v2/payments` pays now when the caller does not say. */
  default_pay_now: Schema.Boolean,
  /** Prefix of invoice numbers, up to 16 characters. */
  invoice_prefix: Schema.String.pipe(
    Schema.check(isCharacterLength(0, 16, { message: "Expected an invoice prefix of at most 16 characters" }))
  ),
  /** Days before a scheduled payment that payees are reminded, 0 to 90. */
  payment_reminder_days: Reminder,
  /**
   * Whether the newer of two users found sharing an address is blocked in the team at once (decision 0109); false,
   * also for settings stored before it existed.
   */
  block_duplicates: withDefault<typeof Schema.Boolean>(false)(Schema.Boolean)
})
export type TeamSettings = typeof TeamSettings.Type

/** A member's settings within a team. */
export const MemberSettings = Schema.Struct({
  /** Default hourly rate in USD cents for time-based invoices, 0 to 100000000. */
  hourly_rate_usd_cents: Schema.Int.pipe(Schema.check(Schema.isBetween({ minimum: 0, maximum: 100_000_000 }))),
  /** Whether the member gets e-mail notifications for payments. */
  payment_notifications: Schema.Boolean,
  /** Default `invoice_description` for payments to this member, up to 500 characters. */
  default_invoice_description: Schema.String.pipe(
    Schema.check(
      isCharacterLength(0, 500, { message: "Expected a default invoice description of at most 500 characters" })
    )
  )
})
export type MemberSettings = typeof MemberSettings.Type

/** The settings a team has before anyone sets them. */
export const defaultTeamSettings: TeamSettings = {
  default_pay_now: true,
  invoice_prefix: "",
  payment_reminder_days: 3,
  block_duplicates: false
}

/** The settings a member has before anyone sets them. */
export const defaultMemberSettings: MemberSettings = {
  hourly_rate_usd_cents: 0,
  payment_notifications: true,
  default_invoice_description: ""
}

/** `PUT /v2/teams/{team_nanoid}/settings`: the fields to change. */
export const UpdateTeamSettingsBody = Schema.Struct({
  default_pay_now: Schema.optionalKey(TeamSettings.fields.default_pay_now),
  invoice_prefix: Schema.optionalKey(TeamSettings.fields.invoice_prefix),
  payment_reminder_days: Schema.optionalKey(TeamSettings.fields.payment_reminder_days),
  block_duplicates: Schema.optionalKey(Schema.Boolean)
})
export type UpdateTeamSettingsBody = typeof UpdateTeamSettingsBody.Type

/** `PUT /v2/teams/{team_nanoid}/member/{user_nanoid}/settings`: the fields to change. */
export const UpdateMemberSettingsBody = Schema.Struct({
  hourly_rate_usd_cents: Schema.optionalKey(MemberSettings.fields.hourly_rate_usd_cents),
  payment_notifications: Schema.optionalKey(MemberSettings.fields.payment_notifications),
  default_invoice_description: Schema.optionalKey(MemberSettings.fields.default_invoice_description)
})
export type UpdateMemberSettingsBody = typeof UpdateMemberSettingsBody.Type
