/** Mail: the message, the port that sends it, the outbox it waits in, and the worker that drains it. */
export * from "./Mail.ts"
export * from "./Mailer.ts"
export * from "./MailOutbox.ts"
export * as MailWorker from "./MailWorker.ts"
