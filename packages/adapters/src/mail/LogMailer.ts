/**
 * The mail port of embedded mode: each mail is written to the log as one block that stands out from the request
 * lines around it, its link first, so a developer can follow an invite on their own machine (issue 35, item 5).
 * Production refuses to start without `SMTP_URL` (apps/api AppConfig.ts), so tokens never reach a production log; the
 * log's redaction keeps the token in this block only (it carries `mail.link`).
 */
import { type Mail, Mailer } from "@svc/domain/mail"
import { Effect, Layer } from "effect"

const rule = "=".repeat(72)

/** The first link in the mail's text, if any. */
const linkOf = (text: string) => /https?:\/\/\S+/.exec(text)?.[0]

/** The block a mail is logged as: a marked opening, the link, the subject, the text indented, a marked end. */
export const mailBlockOf = (mail: Mail): string => {
  const link = linkOf(mail.text)
  return [
    `MAIL to ${mail.to} ${rule.slice(0, Math.max(3, 62 - mail.to.length))}`,
    ...(link === undefined ? [] : [`  Link:    ${link}`]),
    `  Subject: ${mail.subject}`,
    "",
    ...mail.text.split("\n").map((line) => `  | ${line}`.trimEnd()),
    `${rule} END OF MAIL`
  ].join("\n")
}

/** A mailer that logs each mail in full, as one block. */
export const layer = Layer.succeed(
  Mailer,
  Mailer.of({
    send: (mail) =>
      Effect.logInfo(mailBlockOf(mail)).pipe(
        Effect.annotateLogs({ "mail.to": mail.to, "mail.link": linkOf(mail.text) ?? "" })
      )
  })
)
