/** Invites not answered yet, with resend (a new link by e-mail) and revoke (the link stops working). */
import { useMutation, useQueryClient } from "@tanstack/react-query"
import { keys, useInvites } from "../api/Queries.ts"
import type { Invite } from "../api/Types.ts"
import type { TeamContext } from "../navigation/Team.ts"
import { useClient } from "../session/Session.tsx"
import { Button } from "../ui/Controls.tsx"
import { Empty, ErrorNotice, Loading, Notice } from "../ui/Notice.tsx"

const InviteActions = ({ team, invite }: { readonly team: string; readonly invite: Invite }) => {
  const client = useClient()
  const queryClient = useQueryClient()
  const params = { params: { invite_nanoid: invite.nanoid } }
  const resend = useMutation({ mutationFn: () => client.invites.resend(params) })
  const revoke = useMutation({
    mutationFn: () => client.invites.revoke(params),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: keys.invites(team) })
  })
  const failed = resend.error ?? revoke.error
  return (
    <div className="stack">
      <div className="actions">
        <Button
          className="small"
          busy={resend.isPending}
          onClick={() => resend.mutate()}
          aria-label={`Resend the invite to ${invite.email}`}
        >
          Resend
        </Button>
        <Button
          className="small danger"
          busy={revoke.isPending}
          onClick={() => revoke.mutate()}
          aria-label={`Revoke the invite to ${invite.email}`}
        >
          Revoke
        </Button>
      </div>
      {resend.isSuccess ? <Notice tone="success">Sent again.</Notice> : null}
      {failed === null ? null : <ErrorNotice error={failed} />}
    </div>
  )
}

export const PendingInvites = ({ team }: { readonly team: TeamContext }) => {
  const invites = useInvites(team.team)
  const manage = team.may("invites.create")
  return (
    <section className="card section" aria-labelledby="invites-heading">
      <div className="card-head">
        <h2 id="invites-heading">Pending invites</h2>
      </div>
      {invites.isPending ? <Loading what="invites" /> : null}
      {invites.isError ? <ErrorNotice error={invites.error} /> : null}
      {invites.data?.length === 0 ? (
        <Empty title="No pending invites">Invites sent and not yet answered show here.</Empty>
      ) : null}
      {invites.data === undefined || invites.data.length === 0 ? null : (
        <table className="data">
          <thead>
            <tr>
              <th scope="col">E-mail</th>
              <th scope="col">Name</th>
              <th scope="col">Invited by</th>
              {manage ? <th scope="col">Actions</th> : null}
            </tr>
          </thead>
          <tbody>
            {invites.data.map((invite) => (
              <tr key={invite.nanoid}>
                <td data-label="E-mail" className="primary wrap-anywhere">
                  {invite.email}
                </td>
                <td data-label="Name">{invite.invitee_name || <span className="muted">—</span>}</td>
                <td data-label="Invited by">{invite.inviter_name || invite.inviter_email || "—"}</td>
                {manage ? (
                  <td data-label="Actions">
                    <InviteActions team={team.team} invite={invite} />
                  </td>
                ) : null}
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  )
}
