/** A team's users (SPEC §2.2, GET /v2/teams/{team_nanoid}/users): filtered by e-mail, paged when asked. */
import { Effect } from "effect"
import { ChainGateway } from "../chain/ChainGateway.ts"
import type { TeamId } from "../Ids.ts"
import { MembershipRepository } from "../membership/MembershipRepository.ts"
import { TeamAccess } from "../membership/TeamAccess.ts"
import { DuplicateAccounts, duplicatesByUser } from "../payout/DuplicateAccounts.ts"
import type { Caller } from "../user/Caller.ts"
import { pageRequest, pagination, toTeamUser } from "../user/TeamUser.ts"
import { userAccountOf } from "../user/UserAccount.ts"
import { UserRepository } from "../user/UserRepository.ts"

/** Which users of a team to list: e-mails in normal form (`EmailFilter`), and a page when `page` or `offset` is set. */
export interface TeamUsersRequest {
  readonly emails?: ReadonlyArray<string> | undefined
  readonly page?: number | undefined
  readonly offset?: number | undefined
  readonly count?: number | undefined
}

/**
 * The team's users (`team.users.list`), each with their own svc account (empty without a chain), their payout address
 * when they set one (where the team pays them then), whether they are blocked, and the users found sharing an address
 * with them; and the page.
 */
export const listTeamUsers = Effect.fn("Teams.users")(function* (
  caller: Caller,
  team: TeamId,
  request: TeamUsersRequest
) {
  yield* TeamAccess.use((access) => access.authorize(caller, team, "team.users.list"))
  const emails = request.emails === undefined || request.emails.length === 0 ? undefined : request.emails
  const page = pageRequest(request)
  const members = yield* MembershipRepository.use((m) =>
    m.listTeam(team, { emails, offset: page.offset, limit: page.paged ? page.count : undefined })
  )
  const profiles = new Map(
    (yield* UserRepository.use((u) => u.findByIds(members.members.map((m) => m.user_nanoid)))).map((u) => [u.nanoid, u])
  )
  const listedMembers = members.members.flatMap((member) => {
    const user = profiles.get(member.user_nanoid)
    return user === undefined ? [] : [{ user, member }]
  })
  const duplicates = duplicatesByUser(yield* DuplicateAccounts.use((d) => d.ofUsers([...profiles.keys()])))
  const chain = yield* ChainGateway.present
  const listed =
    chain._tag === "None"
      ? listedMembers.map(({ user, member }) => toTeamUser(user, member, "", duplicates.get(user.nanoid)))
      : yield* Effect.forEach(listedMembers, ({ user, member }) =>
          Effect.map(userAccountOf(chain.value, user), (account) =>
            toTeamUser(user, member, account, duplicates.get(user.nanoid))
          )
        )
  return { users: listed, pagination: pagination(page, members.members.length, members.total) }
})
