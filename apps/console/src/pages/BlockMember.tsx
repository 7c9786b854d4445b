/**
 * Blocking a member (admins, decision 0107): they stay listed but are not paid and cannot act for the team; their
 * roles on the team's account are revoked on chain. Unblocking lets them be paid again; roles come back only by a
 * manager invite.
 */
import { useMutation, useQueryClient } from "@tanstack/react-query"
import { type FormEvent, useState } from "react"
import { keys, useUsers } from "../api/Queries.ts"
import type { TeamContext } from "../navigation/Team.ts"
import { useClient } from "../session/Session.tsx"
import { Button, Field } from "../ui/Controls.tsx"
import { DateTime } from "../ui/Format.tsx"
import { ErrorNotice } from "../ui/Notice.tsx"

export const BlockMemberCard = ({ team, user }: { readonly team: TeamContext; readonly user: string }) => {
  const client = useClient()
  const queryClient = useQueryClient()
  const users = useUsers(team.team)
  const member = users.data?.find((u) => u.nanoid === user)
  const [reason, setReason] = useState("")
  const block = useMutation({
    mutationFn: (blocked: boolean) =>
      client.teams.blockMember({
        params: { team_nanoid: team.team, user_nanoid: user },
        payload: blocked && reason !== "" ? { blocked, reason } : { blocked }
      }),
    onSuccess: async () => {
      setReason("")
      await queryClient.invalidateQueries({ queryKey: keys.users(team.team) })
      await queryClient.invalidateQueries({ queryKey: keys.memberSummary(team.team, user) })
    }
  })
  const submit = (event: FormEvent) => {
    event.preventDefault()
    block.mutate(true)
  }
  return (
    <section className="card card-pad stack" aria-labelledby="block-heading">
      <h2 id="block-heading">Block</h2>
      {member?.blocked === true ? (
        <>
          <p>
            Blocked since {member.blocked_since === null ? "—" : <DateTime value={member.blocked_since} />}: not paid,
            and not acting for {team.name}.
          </p>
          {block.isError ? <ErrorNotice error={block.error} /> : null}
          <div className="actions">
            <Button busy={block.isPending} onClick={() => block.mutate(false)}>
              Unblock member
            </Button>
          </div>
        </>
      ) : (
        <form className="stack" onSubmit={submit}>
          <p className="muted">
            They stay listed, but are not paid and cannot act for {team.name}; any role they hold on the team's account
            is revoked on chain.
          </p>
          <Field label="Reason" hint="Up to 500 characters, told to the team's webhooks.">
            {(props) => <input {...props} maxLength={500} value={reason} onChange={(e) => setReason(e.target.value)} />}
          </Field>
          {block.isError ? <ErrorNotice error={block.error} /> : null}
          <div className="actions">
            <Button type="submit" className="danger" busy={block.isPending}>
              Block member
            </Button>
          </div>
        </form>
      )}
    </section>
  )
}
