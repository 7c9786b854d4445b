/**
 * Teams, their members and settings (SPEC §4.2, §4.4, §4.10, §4.12; shapes of §2.2, §2.4, §2.5 and DESIGN §5).
 */
import { TeamId, UserId } from "@svc/domain/Ids"
import { BlockMemberBody, MemberBlockView, MemberSummary } from "@svc/domain/membership"
import {
  CreatedTeam,
  CreateTeamBody,
  MemberSettings,
  TeamListItem,
  TeamSettings,
  TeamView,
  UpdateMemberSettingsBody,
  UpdateTeamBody,
  UpdateTeamSettingsBody
} from "@svc/domain/team"
import { EmailFilter, Pagination, pageSize, pagingReach, TeamUser } from "@svc/domain/user"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { EndpointErrors } from "./ApiError.ts"
import { Authentication } from "./Authentication.ts"
import { Envelope } from "./Envelope.ts"
import { answers, integerQuery } from "./OperationDocs.ts"

const teamPath = { team_nanoid: TeamId }
const memberPath = { team_nanoid: TeamId, user_nanoid: UserId }

const PageNumber = Schema.Int.pipe(
  Schema.check(
    Schema.isBetween(
      { minimum: 1, maximum: pagingReach.maxPage },
      { message: `Expected a page number from 1 to ${pagingReach.maxPage}` }
    )
  )
)
const Offset = Schema.Int.pipe(
  Schema.check(
    Schema.isBetween(
      { minimum: 0, maximum: pagingReach.maxOffset },
      { message: `Expected an offset from 0 to ${pagingReach.maxOffset}` }
    )
  )
)
const PageSize = Schema.Int.pipe(
  Schema.check(
    Schema.isBetween(
      { minimum: pageSize.min, maximum: pageSize.max },
      { message: `Expected a page size from ${pageSize.min} to ${pageSize.max}` }
    )
  )
)

/** `GET /v2/teams/{team_nanoid}/users` query: `emails` repeated or comma-separated (up to 100 in all). */
export const TeamUsersQuery = {
  emails: Schema.optional(EmailFilter),
  page: Schema.optional(PageNumber),
  offset: Schema.optional(Offset),
  count: Schema.optional(PageSize)
}

/** The team routes; all need a bearer token. */
export class TeamsApi extends HttpApiGroup.make("teams")
  .add(
    HttpApiEndpoint.get("listMine", "/v2/user/teams", {
      success: Envelope(Schema.Struct({ teams: Schema.Array(TeamListItem) })),
      error: EndpointErrors
    })
      .annotate(OpenApi.Summary, "List my teams")
      .pipe(answers([]))
      .annotate(OpenApi.Description, "The teams the caller is a member of, with the caller's role."),
    HttpApiEndpoint.post("create", "/v2/teams", {
      payload: CreateTeamBody,
      success: Envelope(CreatedTeam),
      error: EndpointErrors
    })
      .annotate(OpenApi.Summary, "Create a team")
      .pipe(answers(["INSUFFICIENT_PERMISSIONS"]))
      .annotate(
        OpenApi.Description,
        "Creates a team in a company the caller administers. The caller becomes its admin and, with a chain, the owner of its account (created before the answer; 503 while the chain is down). Another `admin_wallet` gets a pending team_admin invite (`admin_invite_nanoid`) that it accepts signed in with that wallet."
      ),
    HttpApiEndpoint.get("get", "/v2/teams/:team_nanoid", {
      params: teamPath,
      success: Envelope(TeamView),
      error: EndpointErrors
    })
      .annotate(OpenApi.Summary, "Get a team")
      .pipe(answers(["TEAM_NOT_FOUND", "INSUFFICIENT_PERMISSIONS"])),
    HttpApiEndpoint.put("update", "/v2/teams/:team_nanoid", {
      params: teamPath,
      payload: UpdateTeamBody,
      success: Envelope(TeamView),
      error: EndpointErrors
    })
      .annotate(OpenApi.Summary, "Update a team")
      .pipe(answers(["TEAM_NOT_FOUND", "INSUFFICIENT_PERMISSIONS"])),
    HttpApiEndpoint.delete("delete", "/v2/teams/:team_nanoid", {
      params: teamPath,
      success: Envelope(Schema.Struct({ team_nanoid: Schema.String, deleted: Schema.Boolean })),
      error: EndpointErrors
    })
      .annotate(OpenApi.Summary, "Delete a team")
      .pipe(answers(["TEAM_NOT_FOUND", "INSUFFICIENT_PERMISSIONS", "TEAM_NOT_EMPTY"])),
    HttpApiEndpoint.get("users", "/v2/teams/:team_nanoid/users", {
      params: teamPath,
      query: TeamUsersQuery,
      success: Envelope(Schema.Struct({ users: Schema.Array(TeamUser), pagination: Pagination })),
      error: EndpointErrors
    })
      .annotate(OpenApi.Summary, "List a team's users")
      .pipe(answers(["TEAM_NOT_FOUND", "INSUFFICIENT_PERMISSIONS"]))
      .pipe(
        integerQuery({
          page: { minimum: 1, maximum: pagingReach.maxPage },
          offset: { minimum: 0, maximum: pagingReach.maxOffset },
          count: { minimum: pageSize.min, maximum: pageSize.max, default: pageSize.default }
        })
      )
      .annotate(
        OpenApi.Description,
        "Users of the team. Paging only with `page` or `offset`; otherwise the full list. With both, `offset` wins and `page` is ignored (the answer's `page` is the one `offset` falls in). Unknown e-mails are absent. Stop when `has_more` is false: `next_page`/`next_offset` then name the end (the first page and offset with no user) and never go past it; asked past the end, they point back at it, so `next_offset` may be less than the `offset` asked (`?page=2&offset=5` of a three-user team answers `next_offset: 3`). `emails` may repeat and each value may list several, comma-separated: at most 100 e-mails in all (400 `VALIDATION_ERROR` beyond)."
      ),
    HttpApiEndpoint.get("memberSummary", "/v2/teams/:team_nanoid/member/:user_nanoid/summary", {
      params: memberPath,
      success: Envelope(MemberSummary),
      error: EndpointErrors
    })
      .annotate(OpenApi.Summary, "Get a member's summary")
      .pipe(
        answers([
          "TEAM_NOT_FOUND",
          "INSUFFICIENT_PERMISSIONS",
          "MEMBER_NOT_FOUND",
          "USER_NOT_FOUND",
          "COMPANY_NOT_FOUND"
        ])
      ),
    HttpApiEndpoint.delete("removeMember", "/v2/teams/:team_nanoid/member/:user_nanoid", {
      params: memberPath,
      success: Envelope(
        Schema.Struct({ team_nanoid: Schema.String, user_nanoid: Schema.String, removed: Schema.Boolean })
      ),
      error: EndpointErrors
    })
      .annotate(OpenApi.Summary, "Remove a member")
      .pipe(answers(["TEAM_NOT_FOUND", "INSUFFICIENT_PERMISSIONS", "MEMBER_NOT_FOUND", "LAST_ADMIN"])),
    HttpApiEndpoint.put("blockMember", "/v2/teams/:team_nanoid/member/:user_nanoid/block", {
      params: memberPath,
      payload: BlockMemberBody,
      success: Envelope(MemberBlockView),
      error: EndpointErrors
    })
      .annotate(OpenApi.Summary, "Block or unblock a member")
      .pipe(
        answers([
          "TEAM_NOT_FOUND",
          "INSUFFICIENT_PERMISSIONS",
          "MEMBER_NOT_FOUND",
          "LAST_ADMIN",
          "INVALID_STATE_TRANSITION",
          "NOT_IMPLEMENTED"
        ])
      )
      .annotate(
        OpenApi.Description,
        "`blocked: true` blocks the member (team_admin only): they stay listed (`blocked`, `blocked_since`) but cannot be paid (`MEMBER_BLOCKED`) nor act for the team; their roles on the team's account are revoked on chain first, and the intents they signed or are paid by are canceled. `blocked: false` unblocks them: they may be paid again, but roles come back only by a manager invite. Asking for the state the member is in changes nothing. Each change emits `team.member_blocked` once. The team keeps a team_admin who is not blocked (409 `LAST_ADMIN`); while a block completes on chain, unblocking answers 409 `INVALID_STATE_TRANSITION`; a chain that does not answer leaves the member blocked in the API and answers 503: the revocation finishes by itself (decision 0107)."
      ),
    HttpApiEndpoint.get("getSettings", "/v2/teams/:team_nanoid/settings", {
      params: teamPath,
      success: Envelope(TeamSettings),
      error: EndpointErrors
    })
      .annotate(OpenApi.Summary, "Get team settings")
      .pipe(answers(["TEAM_NOT_FOUND", "INSUFFICIENT_PERMISSIONS"])),
    HttpApiEndpoint.put("updateSettings", "/v2/teams/:team_nanoid/settings", {
      params: teamPath,
      payload: UpdateTeamSettingsBody,
      success: Envelope(TeamSettings),
      error: EndpointErrors
    })
      .annotate(OpenApi.Summary, "Update team settings")
      .pipe(answers(["TEAM_NOT_FOUND", "INSUFFICIENT_PERMISSIONS"])),
    HttpApiEndpoint.get("getMemberSettings", "/v2/teams/:team_nanoid/member/:user_nanoid/settings", {
      params: memberPath,
      success: Envelope(MemberSettings),
      error: EndpointErrors
    })
      .annotate(OpenApi.Summary, "Get a member's settings")
      .pipe(answers(["TEAM_NOT_FOUND", "INSUFFICIENT_PERMISSIONS", "MEMBER_NOT_FOUND"])),
    HttpApiEndpoint.put("updateMemberSettings", "/v2/teams/:team_nanoid/member/:user_nanoid/settings", {
      params: memberPath,
      payload: UpdateMemberSettingsBody,
      success: Envelope(MemberSettings),
      error: EndpointErrors
    })
      .annotate(OpenApi.Summary, "Update a member's settings")
      .pipe(answers(["TEAM_NOT_FOUND", "INSUFFICIENT_PERMISSIONS", "MEMBER_NOT_FOUND"]))
  )
  .middleware(Authentication)
  .annotateMerge(
    OpenApi.annotations({
      title: "Teams",
      description: "Teams, their members and settings, and the caller's own teams."
    })
  ) {}
