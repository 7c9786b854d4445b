/**
 * The logger of `npm start` (Logging.ts; issue 35, item 5): a readable line per entry or one JSON object per line, the
 * least level `LOG_LEVEL`, and no secret on any line but the invite link of embedded mode's mail block.
 */
import { assert, describe, it } from "@effect/vitest"
import { LogMailer } from "@svc/adapters/mail"
import { Mailer } from "@svc/domain/mail"
import { Cause, ConfigProvider, Effect, Layer } from "effect"
import { TestConsole } from "effect/testing"
import { logging } from "./Logging.ts"

/** Runs `program` under the logger `env` configures, and answers the lines it wrote. */
const linesOf = (env: Record<string, string>, program: Effect.Effect<void>) =>
  Effect.gen(function* () {
    const logger = Layer.unwrap(logging).pipe(Layer.provide(ConfigProvider.layer(ConfigProvider.fromEnv({ env }))))
    yield* program.pipe(Effect.provide(logger))
    return (yield* TestConsole.logLines).map(String)
  }).pipe(Effect.provide(Layer.fresh(TestConsole.layer)))

const relayerKey = `0x${"ab12".repeat(16)}`
const secrets = {
  JWT_SECRET: "j".repeat(40),
  RPC_URL: "https://arb1.example/v2/provider-key-1234,https://arb2.example/rpc/other-key-5678",
  RELAYER_PRIVATE_KEYS: relayerKey,
  MONGODB_URI: "mongodb://svc:hunter2-mongo@db.example:27017/svc?replicaSet=rs0",
  SMTP_URL: "smtps://mailer:hunter2-smtp@smtp.example:465"
}
const jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1cy1hYmMifQ.c2lnbmF0dXJlLW9mLXRoZS10b2tlbg"
const inviteLink = `https://pay.example.com/invites/accept?invite=in-AAAAAAAAAAAA&token=${"9f".repeat(32)}`

/** Every kind of secret, in a message, a field and a cause, as a careless line might carry them. */
const careless = Effect.gen(function* () {
  yield* Effect.logWarning(
    `sending failed. URL: https://arb1.example/v2/provider-key-1234 key ${relayerKey} from ${secrets.MONGODB_URI}`,
    Cause.fail(
      new Error(`HTTP request failed. URL: https://arb2.example/rpc/other-key-5678 body ${relayerKey.slice(2)}`)
    )
  )
  yield* Effect.logInfo(`verified ${jwt}`).pipe(Effect.annotateLogs({ authorization: `Bearer ${jwt}` }))
  yield* Effect.logInfo(`secret whsec_${"A".repeat(43)}= link ${inviteLink} over ${secrets.SMTP_URL}`)
  yield* Effect.logInfo(`signed with ${secrets.JWT_SECRET}`)
})

const leaked = (text: string) =>
  [
    "provider-key-1234",
    "other-key-5678",
    "ab12ab12ab12",
    "hunter2",
    jwt.slice(0, 30),
    "A".repeat(43),
    "9f9f9f9f",
    secrets.JWT_SECRET
  ].filter((secret) => text.includes(secret))

describe("logging", () => {
  it.effect("text: one line an entry, time, level, message and its plain fields; debug only when asked", () =>
    Effect.gen(function* () {
      const request = Effect.logInfo("GET /v2/teams/te-AAAAAAAAAAAA 200 3.1 ms").pipe(
        Effect.annotateLogs({ request_id: "req_1", "http.status": 200, "http.route": "/v2/teams/{team_nanoid}" })
      )
      const lines = yield* linesOf({ LOG_FORMAT: "text" }, Effect.andThen(request, Effect.logDebug("GET /health")))
      assert.strictEqual(lines.length, 1)
      assert.match(
        lines[0] ?? "",
        /^\d\d:\d\d:\d\d\.\d{3} INFO {2}GET \/v2\/teams\/te-A{12} 200 3\.1 ms request_id=req_1$/
      )
      const debug = yield* linesOf({ LOG_FORMAT: "text", LOG_LEVEL: "debug" }, Effect.logDebug("GET /health 200"))
      assert.match(debug[0] ?? "", / DEBUG GET \/health 200$/)
    })
  )

  it.effect("json: one object a line, with every field", () =>
    Effect.gen(function* () {
      const lines = yield* linesOf(
        { LOG_FORMAT: "json" },
        Effect.logInfo("POST /v2/invites 200 4 ms").pipe(
          Effect.annotateLogs({ request_id: "req_2", "http.status": 200 })
        )
      )
      assert.strictEqual(lines.length, 1)
      const entry = JSON.parse(lines[0] ?? "")
      assert.strictEqual(entry.level, "INFO")
      assert.strictEqual(entry.message, "POST /v2/invites 200 4 ms")
      assert.deepStrictEqual(entry.annotations, { request_id: "req_2", "http.status": 200 })
    })
  )

  for (const format of ["text", "json"] as const) {
    it.effect(`${format}: no configured secret, token, key or invite token reaches a line`, () =>
      Effect.gen(function* () {
        const lines = yield* linesOf({ LOG_FORMAT: format, ...secrets }, careless)
        const text = lines.join("\n")
        assert.deepStrictEqual(leaked(text), [], text)
        assert.include(text, "[redacted RPC_URL]")
        assert.include(text, "[redacted RELAYER_PRIVATE_KEYS]")
        assert.include(text, "[redacted JWT]")
        assert.include(text, "token=[redacted]")
        assert.include(text, "whsec_[redacted]")
        assert.include(text, "[redacted MONGODB_URI]")
      })
    )
  }

  it.effect("the mail block stands out, its link first, with the invite's token: the one place a token is logged", () =>
    Effect.gen(function* () {
      const mail = {
        id: "m-1",
        to: "new.hire@example.com",
        subject: "Invitation to join Demo Team on svc",
        text: `Hello,\n\nAccept the invite: ${inviteLink}\n\nIt works once.`
      }
      const lines = yield* linesOf(
        { LOG_FORMAT: "text" },
        Effect.andThen(
          Mailer.use((mailer) => mailer.send(mail)).pipe(Effect.provide(LogMailer.layer), Effect.orDie),
          Effect.logInfo(`later ${inviteLink}`)
        )
      )
      assert.strictEqual(lines.length, 2)
      const block = (lines[0] ?? "").split("\n")
      assert.match(block[0] ?? "", /INFO {2}MAIL to new\.hire@example\.com =+$/)
      assert.strictEqual(block[1], `  Link:    ${inviteLink}`)
      assert.match(block.at(-1) ?? "", /^=+ END OF MAIL$/)
      assert.notInclude(lines[1] ?? "", "9f9f")
    })
  )
})
