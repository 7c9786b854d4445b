/**
 * A real SMTP server for tests (nodemailer's `smtp-server`) on 127.0.0.1 and a free port, keeping every message it
 * receives; `refuse` makes it answer 451 to each recipient, as a server in trouble would.
 */
import { Effect } from "effect"
import { SMTPServer } from "smtp-server"
import { eventually } from "./Eventually.ts"

/** A message as the server received it. */
export interface ReceivedMail {
  readonly from: string
  readonly to: ReadonlyArray<string>
  readonly raw: string
}

/** A running test SMTP server. */
export interface TestSmtpServer {
  readonly url: string
  readonly received: ReadonlyArray<ReceivedMail>
  /** Whether recipients are refused (451, a temporary failure). */
  refuse: boolean
  /** Resolves once `count` messages arrived in all (`eventually`, no timing assumptions). */
  readonly waitFor: (count: number) => Effect.Effect<ReadonlyArray<ReceivedMail>>
}

/** Starts the server for the current scope. */
export const startTestSmtpServer = Effect.acquireRelease(
  Effect.callback<{ server: SMTPServer; state: TestSmtpServer }>((resume) => {
    const received: Array<ReceivedMail> = []
    const state: TestSmtpServer = {
      url: "",
      received,
      refuse: false,
      waitFor: (count) =>
        eventually(() => received.length >= count && received, { what: `${count} mails`, timeout: "60 seconds" })
    }
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ["STARTTLS"],
      logger: false,
      onRcptTo: (_address, _session, callback) => {
        if (state.refuse) {
          const error = Object.assign(new Error("Mailbox busy, try later"), { responseCode: 451 })
          return callback(error)
        }
        callback()
      },
      onData: (stream, session, callback) => {
        const chunks: Array<Buffer> = []
        stream.on("data", (chunk: Buffer) => chunks.push(chunk))
        stream.on("end", () => {
          received.push({
            from: session.envelope.mailFrom === false ? "" : session.envelope.mailFrom.address,
            to: session.envelope.rcptTo.map((r) => r.address),
            raw: Buffer.concat(chunks).toString("utf8")
          })
          callback()
        })
      }
    })
    server.listen(0, "127.0.0.1", () => {
      const address = server.server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      ;(state as { url: string }).url = `smtp://127.0.0.1:${port}`
      resume(Effect.succeed({ server, state }))
    })
  }),
  ({ server }) => Effect.callback<void>((resume) => server.close(() => resume(Effect.void)))
).pipe(Effect.map(({ state }) => state))

/** The decoded text body of a received message (quoted-printable soft breaks joined). */
export const textOf = (mail: ReceivedMail): string => {
  const body = mail.raw
    .split(/\r?\n\r?\n/)
    .slice(1)
    .join("\n\n")
  return body
    .replace(/=\r?\n/g, "")
    .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)))
}
