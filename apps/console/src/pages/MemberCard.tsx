/** A member's summary (`GET /v2/teams/{team}/member/{user}/summary`): who they are and the wallet they sign with. */
import { useQuery } from "@tanstack/react-query"
import { keys } from "../api/Queries.ts"
import type { TeamContext } from "../navigation/Team.ts"
import { useClient } from "../session/Session.tsx"
import { nameOf, roleName } from "../ui/Format.tsx"
import { ErrorNotice, Loading } from "../ui/Notice.tsx"

export const useMemberSummary = (team: string, user: string) => {
  const client = useClient()
  return useQuery({
    queryKey: keys.memberSummary(team, user),
    queryFn: async () => (await client.teams.memberSummary({ params: { team_nanoid: team, user_nanoid: user } })).data
  })
}

export const MemberCard = ({ team, user }: { readonly team: TeamContext; readonly user: string }) => {
  const summary = useMemberSummary(team.team, user)
  const self = user === team.me
  return (
    <section className="card card-pad stack" aria-labelledby="member-heading">
      <h2 id="member-heading">{self ? "Your membership" : "Member"}</h2>
      {summary.isPending ? <Loading what="the member" /> : null}
      {summary.isError ? <ErrorNotice error={summary.error} /> : null}
      {summary.data === undefined ? null : (
        <dl className="facts">
          <dt>Name</dt>
          <dd>{nameOf(summary.data.user)}</dd>
          <dt>E-mail</dt>
          <dd>{summary.data.user.email || "—"}</dd>
          <dt>Wallet</dt>
          <dd className="mono">{summary.data.user.blockchain_address}</dd>
          <dt>Team</dt>
          <dd>
            {team.name}
            {self ? ` · ${roleName(team.role)}` : ""}
          </dd>
          <dt>Company</dt>
          <dd>{summary.data.company.name}</dd>
        </dl>
      )}
    </section>
  )
}
