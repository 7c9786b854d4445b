/**
 * Settings: the team's (whether payments go now by default, the invoice number prefix, how many days ahead payees are
 * reminded, whether duplicate accounts are blocked; admins change them, other managers read them), the member's own,
 * and where the member is paid.
 */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query"
import { type FormEvent, useState } from "react"
import { keys } from "../api/Queries.ts"
import type { TeamSettings } from "../api/Types.ts"
import type { PageProps } from "../navigation/Pages.ts"
import type { TeamContext } from "../navigation/Team.ts"
import { useClient } from "../session/Session.tsx"
import { Button, Field, PageHeader } from "../ui/Controls.tsx"
import { ErrorNotice, Loading, Notice } from "../ui/Notice.tsx"
import { MemberSettingsCard } from "./MemberSettings.tsx"
import { PayoutAddressCard } from "./PayoutAddress.tsx"

const TeamSettingsForm = ({ team, settings }: { readonly team: TeamContext; readonly settings: TeamSettings }) => {
  const client = useClient()
  const queryClient = useQueryClient()
  const editable = team.may("team.settings.update")
  const [form, setForm] = useState({
    payNow: settings.default_pay_now,
    prefix: settings.invoice_prefix,
    reminder: String(settings.payment_reminder_days),
    blockDuplicates: settings.block_duplicates
  })
  const save = useMutation({
    mutationFn: () =>
      client.teams.updateSettings({
        params: { team_nanoid: team.team },
        payload: {
          default_pay_now: form.payNow,
          invoice_prefix: form.prefix,
          payment_reminder_days: Number(form.reminder),
          block_duplicates: form.blockDuplicates
        }
      }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: keys.settings(team.team) })
  })
  const submit = (event: FormEvent) => {
    event.preventDefault()
    save.mutate()
  }
  return (
    <form className="stack" onSubmit={submit}>
      <div className="form-grid">
        <Field label="Invoice number prefix" hint="Up to 16 characters.">
          {(props) => (
            <input
              {...props}
              maxLength={16}
              disabled={!editable}
              value={form.prefix}
              onChange={(e) => setForm({ ...form, prefix: e.target.value })}
            />
          )}
        </Field>
        <Field label="Payment reminder (days before)" hint="0 to 90.">
          {(props) => (
            <input
              {...props}
              type="number"
              min={0}
              max={90}
              disabled={!editable}
              value={form.reminder}
              onChange={(e) => setForm({ ...form, reminder: e.target.value })}
            />
          )}
        </Field>
      </div>
      <label className="check">
        <input
          type="checkbox"
          disabled={!editable}
          checked={form.payNow}
          onChange={(e) => setForm({ ...form, payNow: e.target.checked })}
        />
        Pay at once unless a payment says otherwise
      </label>
      <label className="check">
        <input
          type="checkbox"
          disabled={!editable}
          checked={form.blockDuplicates}
          onChange={(e) => setForm({ ...form, blockDuplicates: e.target.checked })}
        />
        Block the newer of two accounts found sharing an address
      </label>
      {save.isError ? <ErrorNotice error={save.error} /> : null}
      {save.isSuccess ? <Notice tone="success">Saved.</Notice> : null}
      {editable ? (
        <div className="actions">
          <Button type="submit" variant="primary" busy={save.isPending}>
            Save team settings
          </Button>
        </div>
      ) : (
        <p className="muted small">Only the team's admins change these.</p>
      )}
    </form>
  )
}

const TeamSettingsCard = ({ team }: { readonly team: TeamContext }) => {
  const client = useClient()
  const settings = useQuery({
    queryKey: keys.settings(team.team),
    queryFn: async () => (await client.teams.getSettings({ params: { team_nanoid: team.team } })).data
  })
  return (
    <section className="card card-pad stack" aria-labelledby="team-settings-heading">
      <h2 id="team-settings-heading">Team</h2>
      {settings.isPending ? <Loading what="the team's settings" /> : null}
      {settings.isError ? <ErrorNotice error={settings.error} /> : null}
      {settings.data === undefined ? null : <TeamSettingsForm team={team} settings={settings.data} />}
    </section>
  )
}

export const SettingsPage = ({ team }: PageProps) => (
  <>
    <PageHeader title="Settings" description={`How ${team.name} pays, and your own settings in it.`} />
    <div className="grid">
      {team.may("team.settings.read") ? <TeamSettingsCard team={team} /> : null}
      {team.me !== undefined && team.may("member.settings.read", true) ? (
        <MemberSettingsCard team={team} user={team.me} />
      ) : null}
      <PayoutAddressCard />
    </div>
  </>
)
