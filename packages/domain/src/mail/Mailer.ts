/**
 * The mail port: hands one mail to a mail server (SMTP in production, the log in embedded mode).
 */
import { Context, type Effect, Schema } from "effect"
import type { Mail } from "./Mail.ts"

/** The mail server refused the mail or could not be reached; the outbox worker retries later. */
export class MailNotSent extends Schema.TaggedError<MailNotSent>()("MailNotSent", { reason: Schema.String }) {}

/** Sends mails. `send` succeeds once the server accepted the mail. */
export class Mailer extends Context.Service<
  Mailer,
  { readonly send: (mail: Mail) => Effect.Effect<void, MailNotSent> }
>()("@svc/domain/mail/Mailer") {}
