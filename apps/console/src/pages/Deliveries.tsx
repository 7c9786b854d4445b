/**
 * An endpoint's delivery log, newest first and live while a delivery is pending: each delivery's event, status, its
 * last response (status code, time taken, error) and every attempt with the start of what the receiver answered;
 * "Retry" sends one again now, "Recover" queues again every failed delivery since a time.
 */
import { useMutation, useQueryClient } from "@tanstack/react-query"
import { type FormEvent, useState } from "react"
import { keys, useDeliveries } from "../api/Queries.ts"
import type { Delivery } from "../api/Types.ts"
import { useClient } from "../session/Session.tsx"
import { DeliveryBadge } from "../ui/Badge.tsx"
import { Button, Field } from "../ui/Controls.tsx"
import { DateTime } from "../ui/Format.tsx"
import { Empty, ErrorNotice, Loading, Notice } from "../ui/Notice.tsx"

type Attempt = Delivery["attempts"][number]

/**
 * What the receiver answered, collapsed until asked for: the receiver's own text, so React renders it as text (never
 * as markup), wrapped in place.
 */
const ResponseBody = ({ attempt }: { readonly attempt: Attempt }) => {
  if (attempt.response_body === null) return null
  if (attempt.response_body === "") return <span className="muted">Empty body</span>
  return (
    <details className="attempt-body">
      <summary>{attempt.response_body_truncated ? "Response body (its start)" : "Response body"}</summary>
      <pre className="mono small">{attempt.response_body}</pre>
    </details>
  )
}

const Attempts = ({ delivery }: { readonly delivery: Delivery }) =>
  delivery.attempts.length === 0 ? (
    <span className="muted">None yet</span>
  ) : (
    <details>
      <summary>{delivery.attempts.length === 1 ? "1 attempt" : `${delivery.attempts.length} attempts`}</summary>
      <ol className="steps small">
        {delivery.attempts.map((attempt) => (
          <li key={attempt.at} className="attempt">
            <span>
              <DateTime value={attempt.at} />: {attempt.status_code ?? "no answer"}, {attempt.duration_ms} ms
              {attempt.error === null ? "" : ` — ${attempt.error}`}
            </span>
            <ResponseBody attempt={attempt} />
          </li>
        ))}
      </ol>
    </details>
  )

const Row = ({ webhook, delivery }: { readonly webhook: string; readonly delivery: Delivery }) => {
  const client = useClient()
  const queryClient = useQueryClient()
  const retry = useMutation({
    mutationFn: () =>
      client.webhooks.retry({
        params: { webhook_nanoid: webhook, delivery_nanoid: delivery.delivery_nanoid }
      }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: keys.deliveries(webhook) })
  })
  const last = delivery.attempts.at(-1)
  return (
    <tr>
      <td data-label="Event" className="primary">
        <code>{delivery.event_type}</code>
        <span className="sub">
          <DateTime value={delivery.created_at} />
        </span>
      </td>
      <td data-label="Status">
        <DeliveryBadge status={delivery.status} />
        {delivery.next_attempt_at === null ? null : (
          <span className="sub">
            Next try <DateTime value={delivery.next_attempt_at} />
          </span>
        )}
      </td>
      <td data-label="Response" className="num">
        {last === undefined ? "—" : (last.status_code ?? "—")}
      </td>
      <td data-label="Time" className="num">
        {last === undefined ? "—" : `${last.duration_ms} ms`}
      </td>
      <td data-label="Attempts">
        <Attempts delivery={delivery} />
        {last?.error === null || last === undefined ? null : <span className="sub">{last.error}</span>}
      </td>
      <td data-label="Actions">
        <Button className="small" busy={retry.isPending} onClick={() => retry.mutate()}>
          Retry
        </Button>
        {retry.isError ? <ErrorNotice error={retry.error} /> : null}
      </td>
    </tr>
  )
}

const Recover = ({ webhook }: { readonly webhook: string }) => {
  const client = useClient()
  const queryClient = useQueryClient()
  const [since, setSince] = useState("")
  const recover = useMutation({
    mutationFn: () =>
      client.webhooks.recover({
        params: { webhook_nanoid: webhook },
        payload: { since: new Date(since).toISOString() }
      }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: keys.deliveries(webhook) })
  })
  const submit = (event: FormEvent) => {
    event.preventDefault()
    recover.mutate()
  }
  return (
    <form className="stack" onSubmit={submit}>
      <div className="actions align-end">
        <Field label="Recover failed deliveries since">
          {(props) => (
            <input {...props} type="datetime-local" required value={since} onChange={(e) => setSince(e.target.value)} />
          )}
        </Field>
        <Button type="submit" busy={recover.isPending}>
          Recover
        </Button>
      </div>
      {recover.isSuccess ? (
        <Notice tone="success">{(recover.data.data as { requeued: number }).requeued} queued again.</Notice>
      ) : null}
      {recover.isError ? <ErrorNotice error={recover.error} /> : null}
    </form>
  )
}

export const Deliveries = ({ webhook }: { readonly webhook: string }) => {
  const [status, setStatus] = useState<"" | "pending" | "succeeded" | "failed">("")
  const deliveries = useDeliveries(webhook, status === "" ? undefined : status)
  return (
    <section className="card" aria-labelledby="deliveries-heading">
      <div className="card-head">
        <h2 id="deliveries-heading">Deliveries</h2>
        <div className="field">
          <label htmlFor="delivery-status" className="sr-only">
            Show
          </label>
          <select
            id="delivery-status"
            value={status}
            onChange={(event) => setStatus(event.target.value as typeof status)}
          >
            <option value="">All deliveries</option>
            <option value="pending">Pending</option>
            <option value="succeeded">Succeeded</option>
            <option value="failed">Failed</option>
          </select>
        </div>
      </div>
      {deliveries.isPending ? <Loading what="deliveries" /> : null}
      {deliveries.isError ? <ErrorNotice error={deliveries.error} /> : null}
      {deliveries.data?.items.length === 0 ? (
        <Empty title="No deliveries">Send a test, or wait for the team's next event.</Empty>
      ) : null}
      {deliveries.data === undefined || deliveries.data.items.length === 0 ? null : (
        <table className="data">
          <thead>
            <tr>
              <th scope="col">Event</th>
              <th scope="col">Status</th>
              <th scope="col" className="num">
                Response
              </th>
              <th scope="col" className="num">
                Time
              </th>
              <th scope="col">Attempts</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {deliveries.data.items.map((delivery) => (
              <Row key={delivery.delivery_nanoid} webhook={webhook} delivery={delivery} />
            ))}
          </tbody>
        </table>
      )}
      <div className="card-pad">
        <Recover webhook={webhook} />
      </div>
    </section>
  )
}
