/**
 * An e-mail the service sends (invites today): plain text, one recipient.
 */
import { Schema } from "effect"

/** A mail to send. `id` names it in the outbox (a UUID); `text` may hold a secret link, so it is never logged in production. */
export const Mail = Schema.Struct({
  id: Schema.String,
  to: Schema.String,
  subject: Schema.String,
  text: Schema.String
})
export type Mail = typeof Mail.Type
