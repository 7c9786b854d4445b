/**
 * A member's settings in the team: their default hourly rate, whether they get payment notifications, the default
 * description of payments to them. Admins and finance admins change them; the member and viewers read them.
 */

import { formatCents, parseCents } from "@svc/domain/payment"
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query"
import { type FormEvent, useState } from "react"
import { keys } from "../api/Queries.ts"
import type { MemberSettings } from "../api/Types.ts"
import type { TeamContext } from "../navigation/Team.ts"
import { useClient } from "../session/Session.tsx"
import { Button, Field } from "../ui/Controls.tsx"
import { ErrorNotice, Loading, Notice } from "../ui/Notice.tsx"

const SettingsForm = ({
  team,
  user,
  settings,
  editable,
  self
}: {
  readonly team: string
  readonly user: string
  readonly settings: MemberSettings
  readonly editable: boolean
  readonly self: boolean
}) => {
  const client = useClient()
  const queryClient = useQueryClient()
  const [form, setForm] = useState({
    rate: formatCents(settings.hourly_rate_usd_cents).replace(/[$,]/g, ""),
    notifications: settings.payment_notifications,
    description: settings.default_invoice_description
  })
  const save = useMutation({
    mutationFn: () => {
      const rate = parseCents(form.rate, { allowZero: true })
      if (rate._tag === "NotAnAmount") throw new Error(`Hourly rate: ${rate.reason}`)
      return client.teams.updateMemberSettings({
        params: { team_nanoid: team, user_nanoid: user },
        payload: {
          hourly_rate_usd_cents: rate.cents,
          payment_notifications: form.notifications,
          default_invoice_description: form.description
        }
      })
    },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: keys.memberSettings(team, user) })
  })
  const submit = (event: FormEvent) => {
    event.preventDefault()
    save.mutate()
  }
  return (
    <form className="stack" onSubmit={submit}>
      <div className="form-grid">
        <Field label="Hourly rate (USD)">
          {(props) => (
            <input
              {...props}
              inputMode="decimal"
              disabled={!editable}
              value={form.rate}
              onChange={(e) => setForm({ ...form, rate: e.target.value })}
            />
          )}
        </Field>
        <Field label="Default payment description">
          {(props) => (
            <input
              {...props}
              maxLength={500}
              disabled={!editable}
              value={form.description}
              onChange={(e) => setForm({ ...form, description: e.target.value })}
            />
          )}
        </Field>
      </div>
      <label className="check">
        <input
          type="checkbox"
          disabled={!editable}
          checked={form.notifications}
          onChange={(e) => setForm({ ...form, notifications: e.target.checked })}
        />
        {self ? "E-mail me about payments" : "E-mail this member about payments"}
      </label>
      {save.isError ? <ErrorNotice error={save.error} /> : null}
      {save.isSuccess ? <Notice tone="success">Saved.</Notice> : null}
      {editable ? (
        <div className="actions">
          <Button type="submit" variant="primary" busy={save.isPending}>
            Save member settings
          </Button>
        </div>
      ) : null}
    </form>
  )
}

export const MemberSettingsCard = ({ team, user }: { readonly team: TeamContext; readonly user: string }) => {
  const client = useClient()
  const settings = useQuery({
    queryKey: keys.memberSettings(team.team, user),
    queryFn: async () =>
      (await client.teams.getMemberSettings({ params: { team_nanoid: team.team, user_nanoid: user } })).data
  })
  return (
    <section className="card card-pad stack" aria-labelledby="member-settings-heading">
      <h2 id="member-settings-heading">{user === team.me ? "Your settings" : "Member settings"}</h2>
      {settings.isPending ? <Loading what="settings" /> : null}
      {settings.isError ? <ErrorNotice error={settings.error} /> : null}
      {settings.data === undefined ? null : (
        <SettingsForm
          team={team.team}
          user={user}
          settings={settings.data}
          editable={team.may("member.settings.update")}
          self={user === team.me}
        />
      )}
    </section>
  )
}
