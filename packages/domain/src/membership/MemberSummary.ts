/**
 * `GET /v2/teams/{team_nanoid}/member/{user_nanoid}/summary` (SPEC §2.4).
 */
import { Schema, Struct } from "effect"
import { Company } from "../company/Company.ts"
import { PostalAddressWithTimezone } from "../PostalAddress.ts"
import type { User } from "../user/User.ts"
import type { Role } from "./Role.ts"

const Address = PostalAddressWithTimezone

/** A pay schedule of a member (SPEC §2.4). */
export const PaySchedule = Schema.Struct({
  nanoid: Schema.String,
  type: Schema.String,
  amount: Schema.String,
  payments_amount: Schema.Int,
  start_date: Schema.String,
  end_date: Schema.String
})

/** The member summary (SPEC §2.4). */
export const MemberSummary = Schema.Struct({
  user: Schema.Struct({
    nanoid: Schema.String,
    avatar: Schema.String,
    first_name: Schema.String,
    middle_name: Schema.String,
    last_name: Schema.String,
    email: Schema.String,
    blockchain_address: Schema.String,
    phone: Schema.String,
    dob: Schema.String,
    address: Address,
    social: Schema.Struct({
      linkedin: Schema.String,
      discord: Schema.String,
      website: Schema.String,
      x: Schema.String
    }),
    certifications: Schema.Array(
      Schema.Struct({
        nanoid: Schema.String,
        title: Schema.String,
        website: Schema.String,
        file: Schema.String,
        year: Schema.Int
      })
    ),
    onboarding: Schema.Struct({
      onboarded: Schema.Boolean,
      step: Schema.String,
      role: Schema.String,
      moderation_status: Schema.String
    })
  }),
  relationship_type: Schema.String,
  /** Whether the member is blocked in the team (or being blocked), and since when (decision 0107). */
  blocked: Schema.Boolean,
  blocked_since: Schema.NullOr(Schema.String),
  pay_schedules: Schema.Array(PaySchedule),
  // The stored company without its record-keeping time, its id as a plain string.
  company: Company.mapFields(Struct.omit(["created_at"])).mapFields(Struct.assign({ nanoid: Schema.String }))
})
export type MemberSummary = typeof MemberSummary.Type

/** The summary of `user`, a member (`member`: role and block) of a team of `company`. */
export const toMemberSummary = (
  user: User,
  member: { readonly role: Role; readonly block?: { readonly since: string } | undefined },
  company: Company
): MemberSummary => ({
  user: {
    nanoid: user.nanoid,
    avatar: user.avatar,
    first_name: user.first_name,
    middle_name: user.middle_name,
    last_name: user.last_name,
    email: user.email,
    blockchain_address: user.wallet,
    phone: user.phone,
    dob: user.dob,
    address: user.address,
    social: user.social,
    certifications: user.certifications,
    onboarding: user.onboarding
  },
  relationship_type: member.role,
  blocked: member.block !== undefined,
  blocked_since: member.block?.since ?? null,
  pay_schedules: [],
  company: {
    nanoid: company.nanoid,
    avatar: company.avatar,
    name: company.name,
    website: company.website,
    blockchain_address: company.blockchain_address,
    incorporation_country: company.incorporation_country,
    incorporation_type: company.incorporation_type,
    address: company.address,
    admin_contact: company.admin_contact,
    private_data: company.private_data
  }
})
