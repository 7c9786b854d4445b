/**
 * The mail port over SMTP (nodemailer), for production: `SMTP_URL` names the server (`smtp://user:pass@host:587`,
 * `smtps://...` for implicit TLS); the URL is a secret (it carries the password) and is never logged.
 */
import { Mailer, MailNotSent } from "@svc/domain/mail"
import { Effect, Layer, Redacted } from "effect"
import nodemailer from "nodemailer"

/** The sender address when `MAIL_FROM` is not set. */
export const defaultFrom = "svc <no-reply@svc.invalid>"

/** A mailer sending through the SMTP server at `url`, from `from`; the connection pool closes with the scope. */
export const layer = (options: { readonly url: Redacted.Redacted<string>; readonly from?: string | undefined }) =>
  Layer.effect(
    Mailer,
    Effect.map(
      Effect.acquireRelease(
        Effect.sync(() =>
          nodemailer.createTransport({
            url: Redacted.value(options.url),
            // A slow or silent server fails the attempt (the worker retries) rather than holding the lease.
            connectionTimeout: 10_000,
            greetingTimeout: 10_000,
            socketTimeout: 30_000
          })
        ),
        (transport) => Effect.sync(() => transport.close())
      ),
      (transport) =>
        Mailer.of({
          send: (mail) =>
            Effect.tryPromise({
              try: () =>
                transport.sendMail({
                  from: options.from ?? defaultFrom,
                  to: mail.to,
                  subject: mail.subject,
                  text: mail.text
                }),
              // The server's answer, never the mail: its text holds a token.
              catch: (error) => new MailNotSent({ reason: error instanceof Error ? error.message : String(error) })
            }).pipe(Effect.asVoid)
        })
    )
  )
