/**
 * Invite a manager (admin, finance admin or viewer) to a wallet: the role is granted on chain by the team's account,
 * so the admin's wallet signs the grant, after seeing it (the client checks it grants exactly the role and wallet
 * entered).
 */
import type { PreparedGrant } from "@svc/client"
import { useMutation, useQueryClient } from "@tanstack/react-query"
import { type FormEvent, useState } from "react"
import { keys } from "../api/Queries.ts"
import type { TeamContext } from "../navigation/Team.ts"
import { useClient } from "../session/Session.tsx"
import { Button, Field } from "../ui/Controls.tsx"
import { Dialog } from "../ui/Dialog.tsx"
import { roleName } from "../ui/Format.tsx"
import { ErrorNotice, Notice } from "../ui/Notice.tsx"

type ManagerRole = "team_admin" | "team_finance_admin" | "team_viewer"

const GrantView = ({ grant }: { readonly grant: PreparedGrant }) => {
  const message = grant.bundle.typed_data as {
    from: string
    to: string
    data: ReadonlyArray<{ role: string; account: string }>
  }
  return (
    <div className="typed-data stack">
      <h3>What your wallet will sign</h3>
      <dl className="facts small">
        <dt>Signed by</dt>
        <dd className="mono">{message.from}</dd>
        <dt>Account</dt>
        <dd className="mono">{message.to}</dd>
        {message.data.map((entry) => (
          <div className="pair" key={entry.account}>
            <dt>Grant</dt>
            <dd>
              {roleName(entry.role)} to <span className="mono">{entry.account}</span>
            </dd>
          </div>
        ))}
      </dl>
    </div>
  )
}

export const ManagerInviteDialog = ({
  team,
  onClose
}: {
  readonly team: TeamContext
  readonly onClose: () => void
}) => {
  const client = useClient()
  const queryClient = useQueryClient()
  const [form, setForm] = useState({ email: "", role: "team_finance_admin" as ManagerRole, wallet: "" })
  const prepare = useMutation({
    mutationFn: () =>
      client.invites.prepareManagers({
        team: team.team,
        invites: [{ email: form.email.trim(), role: form.role, wallet: form.wallet.trim() }]
      })
  })
  const grant = useMutation({
    mutationFn: (prepared: PreparedGrant) => client.invites.submitManagers(prepared),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: keys.users(team.team) })
  })
  const set = (field: keyof typeof form) => (event: { target: { value: string } }) =>
    setForm({ ...form, [field]: event.target.value })
  const submit = (event: FormEvent) => {
    event.preventDefault()
    if (prepare.data === undefined) prepare.mutate()
    else grant.mutate(prepare.data)
  }
  return (
    <Dialog title="Invite a manager" onClose={onClose}>
      <form className="stack" onSubmit={submit}>
        <Field label="E-mail">
          {(props) => (
            <input
              {...props}
              type="email"
              required
              value={form.email}
              onChange={set("email")}
              disabled={prepare.data !== undefined}
            />
          )}
        </Field>
        <Field label="Role">
          {(props) => (
            <select {...props} value={form.role} onChange={set("role")} disabled={prepare.data !== undefined}>
              <option value="team_admin">Admin</option>
              <option value="team_finance_admin">Finance admin</option>
              <option value="team_viewer">Viewer</option>
            </select>
          )}
        </Field>
        <Field label="Wallet" hint="The address the role is granted to (0x…).">
          {(props) => (
            <input
              {...props}
              required
              pattern="0x[0-9a-fA-F]{40}"
              value={form.wallet}
              onChange={set("wallet")}
              disabled={prepare.data !== undefined}
            />
          )}
        </Field>
        {prepare.data === undefined ? null : <GrantView grant={prepare.data} />}
        {prepare.isError ? <ErrorNotice error={prepare.error} /> : null}
        {grant.isError ? <ErrorNotice error={grant.error} title="Not granted" /> : null}
        {grant.isSuccess ? (
          <Notice tone="success">
            Granted: the wallet is now {roleName(form.role).toLowerCase()} of {team.name}.
          </Notice>
        ) : null}
        <div className="actions">
          {grant.isSuccess ? (
            <Button onClick={onClose}>Done</Button>
          ) : (
            <Button type="submit" variant="primary" busy={prepare.isPending || grant.isPending}>
              {prepare.data === undefined ? "Review" : "Sign and grant"}
            </Button>
          )}
          {grant.isSuccess ? null : <Button onClick={onClose}>Cancel</Button>}
        </div>
      </form>
    </Dialog>
  )
}
