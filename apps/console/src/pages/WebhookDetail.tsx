/**
 * One endpoint: where it delivers and what, a test delivery of any event kind, editing, disabling, rotating its
 * secret (shown once; the old one keeps signing for 24 hours), deleting it, and its delivery log.
 */
import type { WebhookEventType } from "@svc/client"
import { emittedEventTypes } from "@svc/domain/event"
import { useMutation, useQueryClient } from "@tanstack/react-query"
import { useState } from "react"
import { keys, useWebhooks } from "../api/Queries.ts"
import type { WebhookEndpoint } from "../api/Types.ts"
import { pagePath } from "../navigation/Pages.ts"
import { Link, navigate } from "../navigation/Router.tsx"
import type { TeamContext } from "../navigation/Team.ts"
import { useClient } from "../session/Session.tsx"
import { Badge } from "../ui/Badge.tsx"
import { Button, Field, PageHeader } from "../ui/Controls.tsx"
import { Empty, ErrorNotice, Loading, Notice } from "../ui/Notice.tsx"
import { Deliveries } from "./Deliveries.tsx"
import { EndpointDialog, type EndpointFields, SecretDialog } from "./EndpointDialog.tsx"

const useEndpointActions = (team: string, webhook: string) => {
  const client = useClient()
  const queryClient = useQueryClient()
  const params = { webhook_nanoid: webhook }
  const refresh = () => queryClient.invalidateQueries({ queryKey: keys.webhooks(team) })
  return {
    update: useMutation({
      mutationFn: (changes: EndpointFields | { readonly is_active: boolean }) =>
        client.webhooks.update({ params, payload: changes }),
      onSuccess: refresh
    }),
    rotate: useMutation({ mutationFn: () => client.webhooks.rotateSecret({ params }) }),
    remove: useMutation({
      mutationFn: () => client.webhooks.delete({ params }),
      onSuccess: async () => {
        await refresh()
        navigate(pagePath(team, "webhooks"))
      }
    }),
    test: useMutation({
      mutationFn: (event_type: WebhookEventType) => client.webhooks.test({ params, payload: { event_type } }),
      onSuccess: () => queryClient.invalidateQueries({ queryKey: keys.deliveries(webhook) })
    })
  }
}

const SendTest = ({ actions }: { readonly actions: ReturnType<typeof useEndpointActions> }) => {
  const [eventType, setEventType] = useState<WebhookEventType>("payment.sent")
  return (
    <div className="stack">
      <div className="actions align-end">
        <Field label="Event to test">
          {(props) => (
            <select
              {...props}
              value={eventType}
              onChange={(event) => setEventType(event.target.value as WebhookEventType)}
            >
              {emittedEventTypes.map((type) => (
                <option key={type} value={type}>
                  {type}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Button busy={actions.test.isPending} onClick={() => actions.test.mutate(eventType)}>
          Send test
        </Button>
      </div>
      {actions.test.data === undefined ? null : (
        <Notice tone="success">
          <span>Test sent: it shows in the log below.</span>
          <details>
            <summary>The payload it carries (version {actions.test.data.data.version})</summary>
            <pre className="mono small json">{JSON.stringify(actions.test.data.data.test_payload, null, 2)}</pre>
          </details>
        </Notice>
      )}
      {actions.test.isError ? <ErrorNotice error={actions.test.error} /> : null}
    </div>
  )
}

const Facts = ({ endpoint }: { readonly endpoint: WebhookEndpoint }) => (
  <dl className="facts">
    <dt>URL</dt>
    <dd className="mono">{endpoint.url}</dd>
    <dt>Status</dt>
    <dd>{endpoint.is_active ? <Badge tone="good">Active</Badge> : <Badge tone="neutral">Disabled</Badge>}</dd>
    <dt>Events</dt>
    <dd>{endpoint.events.join(", ")}</dd>
    <dt>Payload version</dt>
    <dd>{endpoint.version}</dd>
    {endpoint.description === "" ? null : (
      <>
        <dt>Description</dt>
        <dd>{endpoint.description}</dd>
      </>
    )}
    <dt>Endpoint id</dt>
    <dd className="mono">{endpoint.webhook_nanoid}</dd>
  </dl>
)

const EndpointCard = ({ team, endpoint }: { readonly team: string; readonly endpoint: WebhookEndpoint }) => {
  const actions = useEndpointActions(team, endpoint.webhook_nanoid)
  const [editing, setEditing] = useState(false)
  const [secret, setSecret] = useState<string | undefined>(undefined)
  const failure = actions.update.error ?? actions.rotate.error ?? actions.remove.error
  return (
    <section className="card card-pad stack" aria-label="Endpoint">
      <Facts endpoint={endpoint} />
      <div className="actions">
        <Button onClick={() => setEditing(true)}>Edit</Button>
        <Button
          busy={actions.update.isPending}
          onClick={() => actions.update.mutate({ is_active: !endpoint.is_active })}
        >
          {endpoint.is_active ? "Disable" : "Enable"}
        </Button>
        <Button
          busy={actions.rotate.isPending}
          onClick={() =>
            actions.rotate.mutate(undefined, { onSuccess: (r) => setSecret((r.data as { secret: string }).secret) })
          }
        >
          Rotate secret
        </Button>
        <Button className="danger" busy={actions.remove.isPending} onClick={() => actions.remove.mutate()}>
          Delete
        </Button>
      </div>
      {failure === null ? null : <ErrorNotice error={failure} />}
      <SendTest actions={actions} />
      {editing ? (
        <EndpointDialog
          title="Edit endpoint"
          endpoint={endpoint}
          submitLabel="Save endpoint"
          busy={actions.update.isPending}
          error={actions.update.error}
          onSubmit={(fields) => actions.update.mutate(fields, { onSuccess: () => setEditing(false) })}
          onClose={() => setEditing(false)}
        />
      ) : null}
      {secret === undefined ? null : <SecretDialog secret={secret} onClose={() => setSecret(undefined)} />}
    </section>
  )
}

export const WebhookDetail = ({ team, webhook }: { readonly team: TeamContext; readonly webhook: string }) => {
  const webhooks = useWebhooks(team.team)
  const endpoint = webhooks.data?.find((item) => item.webhook_nanoid === webhook)
  return (
    <>
      <PageHeader
        crumb={
          <Link className="crumb" to={pagePath(team.team, "webhooks")}>
            ← Webhooks
          </Link>
        }
        title={endpoint?.name ?? "Endpoint"}
      />
      {webhooks.isPending ? <Loading what="the endpoint" /> : null}
      {webhooks.isError ? <ErrorNotice error={webhooks.error} /> : null}
      {webhooks.data !== undefined && endpoint === undefined ? <Empty title="No such endpoint" /> : null}
      {endpoint === undefined ? null : (
        <div className="grid">
          <EndpointCard team={team.team} endpoint={endpoint} />
          <Deliveries webhook={endpoint.webhook_nanoid} />
        </div>
      )}
    </>
  )
}
