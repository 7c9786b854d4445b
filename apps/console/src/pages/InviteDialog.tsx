/**
 * Invite someone by e-mail as an employee or a contractor: they get a link, sign in with their own wallet and accept.
 * First and last name are prefilled for them.
 */
import { useMutation, useQueryClient } from "@tanstack/react-query"
import { type FormEvent, useState } from "react"
import { keys } from "../api/Queries.ts"
import type { TeamContext } from "../navigation/Team.ts"
import { useClient } from "../session/Session.tsx"
import { Button, Field } from "../ui/Controls.tsx"
import { Dialog } from "../ui/Dialog.tsx"
import { ErrorNotice } from "../ui/Notice.tsx"

export const InviteDialog = ({ team, onClose }: { readonly team: TeamContext; readonly onClose: () => void }) => {
  const client = useClient()
  const queryClient = useQueryClient()
  const [form, setForm] = useState({
    email: "",
    role: "team_employee" as "team_employee" | "team_contractor",
    first_name: "",
    last_name: ""
  })
  const invite = useMutation({
    mutationFn: () => {
      const prefill = Object.fromEntries(
        Object.entries({ first_name: form.first_name.trim(), last_name: form.last_name.trim() }).filter(
          ([, v]) => v !== ""
        )
      )
      return client.invites.create({
        payload: {
          nanoid: team.team,
          role: form.role,
          invites: [{ email: form.email.trim(), ...(Object.keys(prefill).length === 0 ? {} : { prefill }) }]
        }
      })
    },
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: keys.invites(team.team) })
      onClose()
    }
  })
  const set = (field: keyof typeof form) => (event: { target: { value: string } }) =>
    setForm({ ...form, [field]: event.target.value })
  const submit = (event: FormEvent) => {
    event.preventDefault()
    invite.mutate()
  }
  return (
    <Dialog title={`Invite to ${team.name}`} onClose={onClose}>
      <form className="stack" onSubmit={submit}>
        <Field label="E-mail" hint="They get a link to accept with their own wallet.">
          {(props) => <input {...props} type="email" required value={form.email} onChange={set("email")} />}
        </Field>
        <Field label="Role">
          {(props) => (
            <select {...props} value={form.role} onChange={set("role")}>
              <option value="team_employee">Employee</option>
              <option value="team_contractor">Contractor</option>
            </select>
          )}
        </Field>
        <div className="form-grid">
          <Field label="First name">
            {(props) => <input {...props} value={form.first_name} onChange={set("first_name")} />}
          </Field>
          <Field label="Last name">
            {(props) => <input {...props} value={form.last_name} onChange={set("last_name")} />}
          </Field>
        </div>
        {invite.isError ? <ErrorNotice error={invite.error} /> : null}
        <div className="actions">
          <Button type="submit" variant="primary" busy={invite.isPending}>
            Send invite
          </Button>
          <Button onClick={onClose}>Cancel</Button>
        </div>
      </form>
    </Dialog>
  )
}
