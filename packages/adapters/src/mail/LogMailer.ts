/**
 * The mail port of embedded mode without `SMTP_URL`: each mail is written to the log, link included, so a developer
 * can follow an invite on their own machine. Production refuses to start without `SMTP_URL` (apps/api main.ts), so
 * tokens never reach a production log.
 */
import { Mailer } from "@svc/domain/mail"
import { Effect, Layer } from "effect"

/** A mailer that logs each mail in full. */
export const layer = Layer.succeed(
  Mailer,
  Mailer.of({
    send: (mail) => Effect.logInfo(`mail to ${mail.to}: ${mail.subject}\n${mail.text}`)
  })
)
