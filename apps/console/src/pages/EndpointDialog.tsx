/**
 * A webhook endpoint's form, to add one or edit one: where deliveries go, which events it receives (those this
 * service sends, grouped), its name, and the payload major it pins.
 */
import type { WebhookEventType } from "@svc/client"
import { EventCatalog, emittedEventTypes } from "@svc/domain/event"
import { type FormEvent, useState } from "react"
import type { WebhookEndpoint } from "../api/Types.ts"
import { Button, Field } from "../ui/Controls.tsx"
import { Dialog } from "../ui/Dialog.tsx"
import { ErrorNotice } from "../ui/Notice.tsx"

/** What the form gives. */
export interface EndpointFields {
  readonly name: string
  readonly url: string
  readonly description: string
  readonly events: ReadonlyArray<WebhookEventType>
  readonly version: number
}

const groupOf = (type: (typeof emittedEventTypes)[number]) => EventCatalog[type].category

const EventChoice = ({
  chosen,
  onChange
}: {
  readonly chosen: ReadonlyArray<WebhookEventType>
  readonly onChange: (events: ReadonlyArray<WebhookEventType>) => void
}) => {
  const groups = [...new Set(emittedEventTypes.map(groupOf))]
  const toggle = (type: WebhookEventType, on: boolean) =>
    onChange(on ? [...chosen, type] : chosen.filter((item) => item !== type))
  return (
    <fieldset className="stack">
      <legend>Events</legend>
      <div className="actions">
        <Button className="small" onClick={() => onChange([...emittedEventTypes])}>
          All events
        </Button>
        <Button className="small" onClick={() => onChange([])}>
          None
        </Button>
      </div>
      <div className="form-grid">
        {groups.map((group) => (
          <div key={group} className="stack">
            <span className="label">{group}</span>
            {emittedEventTypes
              .filter((type) => groupOf(type) === group)
              .map((type) => (
                <label key={type} className="check small">
                  <input
                    type="checkbox"
                    checked={chosen.includes(type)}
                    onChange={(event) => toggle(type, event.target.checked)}
                  />
                  <code>{type}</code>
                </label>
              ))}
          </div>
        ))}
      </div>
    </fieldset>
  )
}

export const EndpointDialog = ({
  title,
  endpoint,
  submitLabel,
  busy,
  error,
  onSubmit,
  onClose
}: {
  readonly title: string
  readonly endpoint?: WebhookEndpoint
  readonly submitLabel: string
  readonly busy: boolean
  readonly error: unknown
  readonly onSubmit: (fields: EndpointFields) => void
  readonly onClose: () => void
}) => {
  const [form, setForm] = useState<EndpointFields>({
    name: endpoint?.name ?? "",
    url: endpoint?.url ?? "",
    description: endpoint?.description ?? "",
    events: endpoint?.events ?? [...emittedEventTypes],
    version: endpoint?.version ?? 2
  })
  const submit = (event: FormEvent) => {
    event.preventDefault()
    onSubmit(form)
  }
  return (
    <Dialog title={title} onClose={onClose}>
      <form className="stack" onSubmit={submit}>
        <Field label="Name">
          {(props) => (
            <input
              {...props}
              required
              maxLength={100}
              value={form.name}
              onChange={(e) => setForm({ ...form, name: e.target.value })}
            />
          )}
        </Field>
        <Field label="URL" hint="Where the events are sent (https in production).">
          {(props) => (
            <input
              {...props}
              type="url"
              required
              value={form.url}
              onChange={(e) => setForm({ ...form, url: e.target.value })}
            />
          )}
        </Field>
        <Field label="Description">
          {(props) => (
            <input
              {...props}
              maxLength={500}
              value={form.description}
              onChange={(e) => setForm({ ...form, description: e.target.value })}
            />
          )}
        </Field>
        <Field label="Payload version" hint="The major version of the event payloads it receives.">
          {(props) => (
            <select
              {...props}
              value={form.version}
              onChange={(e) => setForm({ ...form, version: Number(e.target.value) })}
            >
              <option value={2}>2 (current)</option>
              <option value={1}>1</option>
            </select>
          )}
        </Field>
        <EventChoice chosen={form.events} onChange={(events) => setForm({ ...form, events })} />
        {error === null || error === undefined ? null : <ErrorNotice error={error} />}
        <div className="actions">
          <Button type="submit" variant="primary" busy={busy} disabled={form.events.length === 0}>
            {submitLabel}
          </Button>
          <Button onClick={onClose}>Cancel</Button>
        </div>
      </form>
    </Dialog>
  )
}

/** A signing secret, shown once (when created or rotated): it is never shown again. */
export const SecretDialog = ({ secret, onClose }: { readonly secret: string; readonly onClose: () => void }) => (
  <Dialog title="Signing secret" onClose={onClose}>
    <p>
      Deliveries are signed with this secret (Standard Webhooks). Keep it in your receiver's configuration now:{" "}
      <strong>it is not shown again.</strong>
    </p>
    <p className="mono wrap-anywhere typed-data" data-testid="webhook-secret">
      {secret}
    </p>
    <div className="actions">
      <Button variant="primary" onClick={onClose}>
        I have kept it
      </Button>
    </div>
  </Dialog>
)
