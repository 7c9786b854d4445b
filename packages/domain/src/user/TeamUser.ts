/**
 * The team users list (SPEC §4.2): its element (§2.2), its query, its pagination.
 */
import { Schema, SchemaTransformation } from "effect"
import { normalizeEmail } from "../Email.ts"
import { isPayable, type Role } from "../membership/Role.ts"
import { PostalAddress, postalAddressOf } from "../PostalAddress.ts"
import { characterCount, isCharacterLength } from "../Text.ts"
import { Onboarding, type User } from "./User.ts"

/** The most e-mails one team users query may filter on (SPEC §8). */
export const maxEmails = 100
/**
 * The e-mails of a team users query (SPEC §4.2): the key repeated, each a comma-separated list; decoded to one list
 * in normal form without empty entries, at most `maxEmails`, each at most 254 characters. Any string is taken: an
 * e-mail that matches nobody is simply absent from the answer.
 */
export const EmailFilter = Schema.Array(
  Schema.String.pipe(
    Schema.check(
      // At most `maxEmails` comma-separated entries of at most 254 characters each, as the decoded list is checked.
      isCharacterLength(0, maxEmails * 255 - 1),
      Schema.isPattern(/^[^,]{0,254}(?:,[^,]{0,254})*$/u, {
        expected: "comma-separated e-mails of at most 254 characters each",
        message: "An e-mail is longer than 254 characters"
      })
    )
  )
)
  .pipe(Schema.check(Schema.isMaxLength(maxEmails, { message: `At most ${maxEmails} e-mails may be given` })))
  .pipe(
    Schema.decodeTo(
      Schema.Array(Schema.String).pipe(
        Schema.check(
          Schema.makeFilter(
            (emails) => emails.length <= maxEmails || `At most ${maxEmails} e-mails may be given, got ${emails.length}`
          ),
          Schema.makeFilter(
            (emails) => emails.every((e) => characterCount(e) <= 254) || "An e-mail is longer than 254 characters"
          )
        )
      ),
      SchemaTransformation.transform<ReadonlyArray<string>, ReadonlyArray<string>>({
        decode: (lists) =>
          lists
            .flatMap((list) => list.split(","))
            .map(normalizeEmail)
            .filter((email) => email !== ""),
        encode: (emails) => emails
      })
    )
  )
export type EmailFilter = typeof EmailFilter.Type

/** Page size bounds and default (SPEC §8). */
export const pageSize = { min: 1, max: 500, default: 100 } as const

/**
 * How far paging may reach: far past any team's size, and small enough that `page x count` and `offset + count`
 * stay exact integers everywhere they go (a larger value is a 400, not a database error).
 */
export const pagingReach = { maxOffset: 1_000_000, maxPage: 2_000 } as const

/** One user of a team (SPEC §2.2). */
export const TeamUser = Schema.Struct({
  nanoid: Schema.String,
  first_name: Schema.String,
  middle_name: Schema.String,
  last_name: Schema.String,
  email: Schema.String,
  role: Schema.String,
  svc_account: Schema.String,
  svcid: Schema.String,
  avatar: Schema.String,
  address: PostalAddress,
  onboarding: Onboarding,
  /** Whether the team may pay them: an employee or a contractor (decision 0008) who is not blocked (decision 0107). */
  payable: Schema.Boolean,
  /** Where they are paid instead of their svc account, when they set one (decision 0108); `null` otherwise. */
  payout_address: Schema.NullOr(Schema.String),
  /** Whether they are blocked in the team (or being blocked), and since when (decision 0107). */
  blocked: Schema.Boolean,
  blocked_since: Schema.NullOr(Schema.String),
  /** The other users found sharing an address with them, a wallet or a payout address (decision 0109). */
  duplicate_of: Schema.Array(Schema.String)
})
export type TeamUser = typeof TeamUser.Type

/**
 * The pagination object (SPEC §2.2). While `has_more`, `next_*` name the page after this one; when nothing follows,
 * they name the end and never go past it (decision 0040).
 */
export const Pagination = Schema.Struct({
  page: Schema.Int,
  count: Schema.Int,
  offset: Schema.Int,
  next_page: Schema.Int,
  next_offset: Schema.Int,
  has_more: Schema.Boolean
})
export type Pagination = typeof Pagination.Type

/**
 * A user as a member of a team (`member`: their role and block); `svc_account` is the user's own account address,
 * `duplicateOf` the users found sharing an address with them.
 */
export const toTeamUser = (
  user: User,
  member: { readonly role: Role; readonly block?: { readonly since: string } | undefined },
  svcAccount: string,
  duplicateOf: ReadonlyArray<string> = []
): TeamUser => ({
  nanoid: user.nanoid,
  first_name: user.first_name,
  middle_name: user.middle_name,
  last_name: user.last_name,
  email: user.email,
  role: member.role,
  svc_account: svcAccount,
  svcid: user.svcid,
  avatar: user.avatar,
  address: postalAddressOf(user.address),
  onboarding: user.onboarding,
  payable: isPayable(member.role) && member.block === undefined,
  payout_address: user.payout_address ?? null,
  blocked: member.block !== undefined,
  blocked_since: member.block?.since ?? null,
  duplicate_of: duplicateOf
})

/** Where a page starts and how long it is; `paged` is false when the caller asked for the full list. */
export interface PageRequest {
  readonly offset: number
  readonly count: number
  readonly paged: boolean
}

/** The page a query asks for (SPEC §4.2): paging only when `page` or `offset` is set; `offset` wins over `page`. */
export const pageRequest = (query: {
  readonly page?: number | undefined
  readonly offset?: number | undefined
  readonly count?: number | undefined
}): PageRequest => {
  const count = query.count ?? pageSize.default
  if (query.offset !== undefined) return { offset: query.offset, count, paged: true }
  if (query.page !== undefined) return { offset: (query.page - 1) * count, count, paged: true }
  return { offset: 0, count, paged: false }
}

/**
 * The pagination object for a page of `returned` rows out of `total`. When nothing follows, `next_offset` is the end
 * (`total`, the first offset with no row) and `next_page` the first page with no row at this `count`; asked for,
 * either answers no rows and names itself again, so following `next_*` always stops and never repeats a row, however
 * a client decides to stop (decision 0040).
 */
export const pagination = (request: PageRequest, returned: number, total: number): Pagination => {
  const count = request.paged ? request.count : returned
  const page = request.paged ? Math.floor(request.offset / request.count) + 1 : 1
  const hasMore = request.offset + returned < total
  return {
    page,
    count,
    offset: request.offset,
    next_page: hasMore ? page + 1 : count === 0 ? 1 : Math.ceil(total / count) + 1,
    next_offset: hasMore ? request.offset + returned : total,
    has_more: hasMore
  }
}
