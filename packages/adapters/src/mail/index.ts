/** The mail adapters: SMTP (nodemailer) for production, the log for embedded mode without `SMTP_URL`. */
export * as LogMailer from "./LogMailer.ts"
export * as SmtpMailer from "./SmtpMailer.ts"
