/**
 * The SMTP mailer and the mail worker against a real SMTP server on 127.0.0.1: queued mails arrive, a refusing
 * server makes the worker retry later without losing the mail, and a sent mail's text (its token) is forgotten.
 */
import { assert, describe, it } from "@effect/vitest"
import { Mailer, MailOutbox, MailWorker } from "@svc/domain/mail"
import { Effect, Layer, Redacted } from "effect"
import { TestClock } from "effect/testing"
import { startTestSmtpServer, textOf } from "../../test/TestSmtpServer.ts"
import { mail } from "../contract/Fixtures.ts"
import { SqliteDatabase } from "../sqlite/SqliteDatabase.ts"
import * as SqliteStorage from "../sqlite/SqliteStorage.ts"
import * as SmtpMailer from "./SmtpMailer.ts"

const storage = SqliteStorage.ports.pipe(Layer.provideMerge(SqliteDatabase.layer({ filename: ":memory:" })))

describe("SMTP mailer", () => {
  it.live("sends a mail the server receives, from the configured sender", () =>
    Effect.gen(function* () {
      const smtp = yield* startTestSmtpServer
      const mailer = yield* Mailer.pipe(
        Effect.provide(SmtpMailer.layer({ url: Redacted.make(smtp.url), from: "Team <team@svc.test>" }))
      )
      yield* mailer.send(mail(1))
      const [received] = yield* smtp.waitFor(1)
      assert.strictEqual(received?.from, "team@svc.test")
      assert.deepStrictEqual(received?.to, ["invitee1@example.com"])
      assert.include(received?.raw ?? "", "Subject: Mail 1")
      assert.include(textOf(received!), "secret-token-1")
      smtp.refuse = true
      const refused = yield* Effect.flip(mailer.send(mail(2)))
      assert.strictEqual(refused._tag, "MailNotSent")
      assert.include(refused.reason, "451")
      assert.notInclude(refused.reason, "secret-token-2")
    }).pipe(Effect.scoped)
  )

  it.effect("the worker retries a refused mail later and forgets a sent mail's text", () =>
    Effect.gen(function* () {
      const smtp = yield* startTestSmtpServer
      const mailer = SmtpMailer.layer({ url: Redacted.make(smtp.url) })
      const run = Effect.gen(function* () {
        yield* MailOutbox.use((outbox) => outbox.enqueue([mail(1)]))
        smtp.refuse = true
        const first = yield* MailWorker.sendQueuedMails()
        assert.deepStrictEqual(first, [{ id: mail(1).id, run: "retry_later" }])
        // Not due yet: nothing is sent on the next pass.
        assert.deepStrictEqual(yield* MailWorker.sendQueuedMails(), [])
        smtp.refuse = false
        yield* TestClock.adjust(MailWorker.retryDelayMillis(1))
        assert.deepStrictEqual(yield* MailWorker.sendQueuedMails(), [{ id: mail(1).id, run: "sent" }])
        assert.strictEqual(yield* MailOutbox.use((o) => o.stateOf(mail(1).id)), "sent")
        const { connection } = yield* SqliteDatabase
        const row = connection.prepare("SELECT record, attempts FROM mail_outbox").get()
        assert.notInclude(String(row?.record), "secret-token-1")
        assert.strictEqual(row?.attempts, 1)
      })
      yield* Effect.provide(run, Layer.merge(storage, mailer))
      assert.strictEqual((yield* smtp.waitFor(1)).length, 1)
    }).pipe(Effect.scoped)
  )
})
