/**
 * Webhook endpoints: where the team's events are delivered, signed. Add one (its secret shown once), open one for
 * its delivery log (`/webhooks/wh-…`).
 */
import { useMutation, useQueryClient } from "@tanstack/react-query"
import { useState } from "react"
import { keys, useWebhooks } from "../api/Queries.ts"
import { type PageProps, pagePath } from "../navigation/Pages.ts"
import { Link } from "../navigation/Router.tsx"
import { useClient } from "../session/Session.tsx"
import { Badge } from "../ui/Badge.tsx"
import { Button, PageHeader } from "../ui/Controls.tsx"
import { DateTime } from "../ui/Format.tsx"
import { Empty, ErrorNotice, Loading } from "../ui/Notice.tsx"
import { EndpointDialog, type EndpointFields, SecretDialog } from "./EndpointDialog.tsx"
import { WebhookDetail } from "./WebhookDetail.tsx"

const useAddEndpoint = (team: string, onSecret: (secret: string) => void) => {
  const client = useClient()
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (fields: EndpointFields) => client.webhooks.create({ payload: { team_nanoid: team, ...fields } }),
    onSuccess: async (created) => {
      await queryClient.invalidateQueries({ queryKey: keys.webhooks(team) })
      onSecret((created.data as { secret?: string }).secret ?? "")
    }
  })
}

const EndpointList = ({ team }: PageProps) => {
  const webhooks = useWebhooks(team.team)
  const [adding, setAdding] = useState(false)
  const [secret, setSecret] = useState<string | undefined>(undefined)
  const add = useAddEndpoint(team.team, (shown) => {
    setAdding(false)
    setSecret(shown)
  })
  const addButton = (
    <Button variant="primary" onClick={() => setAdding(true)}>
      Add endpoint
    </Button>
  )
  return (
    <>
      <PageHeader
        title="Webhooks"
        description="Endpoints that receive the team's events, signed, with a log of every delivery."
        actions={addButton}
      />
      <section className="card" aria-label="Endpoints">
        {webhooks.isPending ? <Loading what="endpoints" /> : null}
        {webhooks.isError ? <ErrorNotice error={webhooks.error} /> : null}
        {webhooks.data?.length === 0 ? (
          <Empty title="No endpoints yet">
            Add an endpoint to receive payments, deposits and invites as they happen.
          </Empty>
        ) : null}
        {webhooks.data === undefined || webhooks.data.length === 0 ? null : (
          <table className="data">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">URL</th>
                <th scope="col">Events</th>
                <th scope="col">Status</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {webhooks.data.map((endpoint) => (
                <tr key={endpoint.webhook_nanoid}>
                  <td data-label="Name" className="primary">
                    <Link to={pagePath(team.team, "webhooks", endpoint.webhook_nanoid)}>{endpoint.name}</Link>
                  </td>
                  <td data-label="URL" className="mono wrap-anywhere">
                    {endpoint.url}
                  </td>
                  <td data-label="Events">{endpoint.events.length}</td>
                  <td data-label="Status">
                    {endpoint.is_active ? <Badge tone="good">Active</Badge> : <Badge tone="neutral">Disabled</Badge>}
                  </td>
                  <td data-label="Created">
                    <DateTime value={endpoint.created_at} day />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      {adding ? (
        <EndpointDialog
          title="Add endpoint"
          submitLabel="Create endpoint"
          busy={add.isPending}
          error={add.error}
          onSubmit={(fields) => add.mutate(fields)}
          onClose={() => setAdding(false)}
        />
      ) : null}
      {secret === undefined ? null : <SecretDialog secret={secret} onClose={() => setSecret(undefined)} />}
    </>
  )
}

export const WebhooksPage = (props: PageProps) => {
  const [endpoint] = props.rest
  return endpoint === undefined ? <EndpointList {...props} /> : <WebhookDetail team={props.team} webhook={endpoint} />
}
