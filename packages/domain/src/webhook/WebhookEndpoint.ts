/**
 * Webhook endpoints: the record the domain keeps (with its sealed signing secrets), and the resource of SPEC §2.1.
 */
import { Schema } from "effect"
import { EventTypeSchema } from "../event/EventCatalog.ts"
import { PayloadVersion } from "../event/EventEnvelope.ts"
import { CompanyId, TeamId, WebhookId } from "../Ids.ts"
import { isCharacterLength, urlPatternOf } from "../Text.ts"
import { IsoTimestamp } from "../Timestamp.ts"
import { WebhookMachine } from "./WebhookMachine.ts"

/**
 * A delivery URL as the schema checks it: an absolute URL without credentials, at most 2048 characters. Which schemes
 * (http and https, or https only) and addresses a deployment accepts is `WebhookUrlPolicy`'s, whose refusal says what
 * this server accepts (DESIGN §5b); the document describes the widest, http or https.
 */
export const WebhookUrl = Schema.String.pipe(
  Schema.check(
    isCharacterLength(0, 2048, { message: "Expected a URL of at most 2048 characters" }),
    Schema.makeFilter(
      (s) => {
        const url = URL.parse(s)
        if (url === null) return "Expected an absolute URL"
        return (url.username === "" && url.password === "") || "Expected a URL without credentials"
      },
      { toJsonSchema: () => ({ format: "uri", pattern: urlPatternOf("http or https") }) }
    )
  )
)

/** A signing secret: `whsec_` + base64 of at least 24 random bytes (Standard Webhooks). */
export const WebhookSecret = Schema.String.pipe(Schema.check(Schema.isPattern(/^whsec_[A-Za-z0-9+/]{32,}={0,2}$/u)))
export type WebhookSecret = typeof WebhookSecret.Type

/** A signing secret as stored: sealed by `WebhookSecretBox`; a rotated-out one signs until `expires_at`. */
export const StoredSecret = Schema.Struct({ sealed: Schema.String, expires_at: Schema.optionalKey(IsoTimestamp) })
export type StoredSecret = typeof StoredSecret.Type

/** An endpoint as recorded. Secrets: the current one first, then rotated-out ones still in their grace period. */
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
  secrets: Schema.NonEmptyArray(StoredSecret),
  /** Since when every delivery has failed (cleared by a success); 5 days of it disable the endpoint. */
  failing_since: Schema.optionalKey(IsoTimestamp),
  /** When it was last disabled: enabling it again re-queues what failed since. */
  disabled_at: Schema.optionalKey(IsoTimestamp),
  created_at: IsoTimestamp,
  updated_at: IsoTimestamp
})
export type WebhookEndpointRecord = typeof WebhookEndpointRecord.Type

/** The webhook endpoint resource (SPEC §2.1), plus the payload major it pinned. */
export const WebhookEndpoint = Schema.Struct({
  webhook_nanoid: Schema.String,
  company_nanoid: Schema.String,
  team_nanoid: Schema.String,
  url: Schema.String,
  events: Schema.Array(EventTypeSchema),
  is_active: Schema.Boolean,
  name: Schema.String,
  description: Schema.String,
  version: Schema.Int,
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
  version: record.version,
  created_at: record.created_at,
  updated_at: record.updated_at
})

/** The secrets that sign at `nowMillis`: the current one, and rotated-out ones whose grace has not ended. */
export const liveSecrets = (record: WebhookEndpointRecord, nowMillis: number): ReadonlyArray<StoredSecret> =>
  record.secrets.filter((s) => s.expires_at === undefined || Date.parse(s.expires_at) > nowMillis)

/** How long a rotated-out secret keeps signing beside the new one (DESIGN §5b). */
export const rotationGraceMillis = 24 * 3_600_000
