/** One member: their summary, their settings, and (for admins) blocking them or removing them from the team. */
import { useMutation, useQueryClient } from "@tanstack/react-query"
import { useState } from "react"
import { keys } from "../api/Queries.ts"
import { pagePath } from "../navigation/Pages.ts"
import { Link, navigate } from "../navigation/Router.tsx"
import type { TeamContext } from "../navigation/Team.ts"
import { useClient } from "../session/Session.tsx"
import { Button, PageHeader } from "../ui/Controls.tsx"
import { ErrorNotice } from "../ui/Notice.tsx"
import { BlockMemberCard } from "./BlockMember.tsx"
import { MemberCard } from "./MemberCard.tsx"
import { MemberSettingsCard } from "./MemberSettings.tsx"

const RemoveMember = ({ team, user }: { readonly team: TeamContext; readonly user: string }) => {
  const client = useClient()
  const queryClient = useQueryClient()
  const [confirming, setConfirming] = useState(false)
  const remove = useMutation({
    mutationFn: () => client.teams.removeMember({ params: { team_nanoid: team.team, user_nanoid: user } }),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: keys.users(team.team) })
      navigate(pagePath(team.team, "members"))
    }
  })
  return (
    <section className="card card-pad stack" aria-labelledby="remove-heading">
      <h2 id="remove-heading">Remove from the team</h2>
      <p className="muted">
        They lose access to {team.name} at once, and any role they hold on the team's account is revoked on chain.
      </p>
      {remove.isError ? <ErrorNotice error={remove.error} /> : null}
      <div className="actions">
        {confirming ? (
          <>
            <Button className="danger solid" busy={remove.isPending} onClick={() => remove.mutate()}>
              Yes, remove
            </Button>
            <Button onClick={() => setConfirming(false)}>Keep</Button>
          </>
        ) : (
          <Button className="danger" onClick={() => setConfirming(true)}>
            Remove member
          </Button>
        )}
      </div>
    </section>
  )
}

export const MemberDetail = ({ team, user }: { readonly team: TeamContext; readonly user: string }) => (
  <>
    <PageHeader
      crumb={
        <Link className="crumb" to={pagePath(team.team, "members")}>
          ← Members
        </Link>
      }
      title="Member"
    />
    <div className="grid">
      <MemberCard team={team} user={user} />
      {team.may("member.settings.read", user === team.me) ? <MemberSettingsCard team={team} user={user} /> : null}
      {team.may("member.block") && user !== team.me ? <BlockMemberCard team={team} user={user} /> : null}
      {team.may("member.remove") && user !== team.me ? <RemoveMember team={team} user={user} /> : null}
    </div>
  </>
)
