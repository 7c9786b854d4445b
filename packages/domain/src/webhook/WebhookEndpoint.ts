/**
 * Webhook endpoints: the record the domain keeps (with its signing secrets), and the resource of SPEC §2.1.
 */
import { Schema } from "effect"
import { EventTypeSchema } from "../event/EventCatalog.ts"
import { PayloadVersion } from "../event/EventEnvelope.ts"
import { CompanyId, TeamId, WebhookId } from "../Ids.ts"
import { IsoTimestamp } from "../Timestamp.ts"
import { WebhookMachine } from "./WebhookMachine.ts"

/** A delivery URL: https, or http to a loopback host (for local development). */
export const WebhookUrl = Schema.String.pipe(
  Schema.check(
    Schema.isMaxLength(2048),
    Schema.makeFilter((s) => {
      const url = URL.parse(s)
      if (url === null) return "Expected an absolute URL"
      const loopback = ["localhost", "127.0.0.1", "[::1]"].includes(url.hostname)
      return url.protocol === "https:" || (url.protocol === "http:" && loopback) || "Expected an https URL"
    })
  )
)

/** A signing secret: `whsec_` + base64 of at least 24 random bytes (Standard Webhooks). */
export const WebhookSecret = Schema.String.pipe(Schema.check(Schema.isPattern(/^whsec_[A-Za-z0-9+/]{32,}={0,2}$/)))

/** An endpoint as recorded. Secrets: the current one first; a rotated-out one stays valid until `expires_at`. */
export const WebhookEndpointRecord = Schema.Struct({
  nanoid: WebhookId,
  company_nanoid: CompanyId,
  team_nanoid: TeamId,
  url: WebhookUrl,
  events: Schema.Array(EventTypeSchema),
  state: WebhookMachine.State,
  name: Schema.String,
  description: Schema.String,
  /** The payload major the endpoint pinned. */
  version: PayloadVersion,
  secrets: Schema.NonEmptyArray(Schema.Struct({ secret: WebhookSecret, expires_at: Schema.optionalKey(IsoTimestamp) })),
  /** Since when every delivery has failed (cleared by a success); 5 days of it disable the endpoint. */
  failing_since: Schema.optionalKey(IsoTimestamp),
  created_at: IsoTimestamp,
  updated_at: IsoTimestamp
})
export type WebhookEndpointRecord = typeof WebhookEndpointRecord.Type

/** The webhook endpoint resource (SPEC §2.1). */
export const WebhookEndpoint = Schema.Struct({
  webhook_nanoid: Schema.String,
  company_nanoid: Schema.String,
  team_nanoid: Schema.String,
  url: Schema.String,
  events: Schema.Array(EventTypeSchema),
  is_active: Schema.Boolean,
  name: Schema.String,
  description: Schema.String,
  created_at: IsoTimestamp,
  updated_at: IsoTimestamp
})
export type WebhookEndpoint = typeof WebhookEndpoint.Type

/** The resource view of a record (secrets never leave the record). */
export const webhookEndpointOf = (record: WebhookEndpointRecord): WebhookEndpoint => ({
  webhook_nanoid: record.nanoid,
  company_nanoid: record.company_nanoid,
  team_nanoid: record.team_nanoid,
  url: record.url,
  events: record.events,
  is_active: record.state === "active",
  name: record.name,
  description: record.description,
  created_at: record.created_at,
  updated_at: record.updated_at
})
