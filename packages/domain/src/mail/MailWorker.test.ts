import { assert, describe, it } from "@effect/vitest"
import { SmtpMailer } from "@svc/adapters/mail"
import { startTestSmtpServer, type TestSmtpServer, textOf } from "@svc/adapters/test/TestSmtpServer"
import { Effect, Redacted } from "effect"
import { TestClock } from "effect/testing"
import { invitesBody } from "../../test/InviteKit.ts"
import { seedTeam, teamUseCases } from "../../test/UseCaseKit.ts"
import { createInvites } from "../invite/CreateInvites.ts"
import { MailOutbox } from "./MailOutbox.ts"
import * as MailWorker from "./MailWorker.ts"

/** `body` with the SMTP mailer on a real SMTP server on 127.0.0.1 (`url` instead, when given). */
const withSmtp = <A, E, R>(body: (smtp: TestSmtpServer) => Effect.Effect<A, E, R>, url?: string) =>
  Effect.gen(function* () {
    const smtp = yield* startTestSmtpServer
    const mailer = SmtpMailer.layer({ url: Redacted.make(url ?? smtp.url), from: "svc <invites@svc.test>" })
    return yield* body(smtp).pipe(Effect.provide(mailer))
  }).pipe(Effect.scoped)

/** Invites (and so their mails) to `emails`, queued by the seeded team's admin. */
const queueInvites = (emails: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const { team, admin } = yield* seedTeam
    yield* createInvites(admin, invitesBody(team, emails))
  })

const stateOf = (id: string) => MailOutbox.use((o) => o.stateOf(id))

describe("MailWorker.sendQueuedMails", () => {
  it.effect("sends every queued mail, past one claim's batch, each once; the mail carries its invite link", () =>
    withSmtp((smtp) =>
      Effect.gen(function* () {
        const emails = Array.from({ length: 13 }, (_, i) => `hire${i}@team.example`)
        yield* queueInvites(emails)
        const runs = yield* MailWorker.sendQueuedMails()
        assert.deepStrictEqual(
          runs.map((r) => r.run),
          emails.map(() => "sent")
        )
        assert.deepStrictEqual(smtp.received.flatMap((m) => m.to).sort(), [...emails].sort())
        assert.match(textOf(smtp.received[0]!), /token=[0-9a-f]{64}/)
        for (const { id } of runs) assert.strictEqual(yield* stateOf(id), "sent")
        // Nothing left: another pass sends nothing.
        assert.deepStrictEqual(yield* MailWorker.sendQueuedMails(), [])
        assert.strictEqual(smtp.received.length, 13)
      })
    ).pipe(Effect.provide(teamUseCases))
  )

  it.effect("tries at most `limit` mails a pass; the rest wait for the next", () =>
    withSmtp((smtp) =>
      Effect.gen(function* () {
        yield* queueInvites(["a@team.example", "b@team.example", "c@team.example"])
        assert.strictEqual((yield* MailWorker.sendQueuedMails(2)).length, 2)
        assert.strictEqual(smtp.received.length, 2)
        assert.strictEqual((yield* MailWorker.sendQueuedMails(2)).length, 1)
        assert.strictEqual(smtp.received.length, 3)
      })
    ).pipe(Effect.provide(teamUseCases))
  )

  it.effect("a refused mail stays queued with its text, retried after a doubling delay, and sent once accepted", () =>
    withSmtp((smtp) =>
      Effect.gen(function* () {
        yield* queueInvites(["a@team.example"])
        smtp.refuse = true
        const [first] = yield* MailWorker.sendQueuedMails()
        assert.strictEqual(first?.run, "retry_later")
        const id = first?.id ?? ""
        assert.strictEqual(yield* stateOf(id), "queued")
        // Due again 10 s after the first failure, 20 s after the second.
        yield* TestClock.adjust(9_999)
        assert.deepStrictEqual(yield* MailWorker.sendQueuedMails(), [])
        yield* TestClock.adjust(1)
        assert.deepStrictEqual(yield* MailWorker.sendQueuedMails(), [{ id, run: "retry_later" }])
        yield* TestClock.adjust(19_999)
        assert.deepStrictEqual(yield* MailWorker.sendQueuedMails(), [])
        smtp.refuse = false
        yield* TestClock.adjust(1)
        assert.deepStrictEqual(yield* MailWorker.sendQueuedMails(), [{ id, run: "sent" }])
        // The mail sent after the failures is the whole mail: its link is intact.
        assert.deepStrictEqual(
          smtp.received.map((m) => m.to),
          [["a@team.example"]]
        )
        assert.match(textOf(smtp.received[0]!), /token=[0-9a-f]{64}/)
      })
    ).pipe(Effect.provide(teamUseCases))
  )

  it.effect("a mail refused `maxMailAttempts` times is given up: failed, never tried again", () =>
    withSmtp((smtp) =>
      Effect.gen(function* () {
        yield* queueInvites(["a@team.example"])
        smtp.refuse = true
        const runs: Array<string> = []
        let id = ""
        for (let attempt = 1; attempt <= MailWorker.maxMailAttempts; attempt++) {
          const [run] = yield* MailWorker.sendQueuedMails()
          runs.push(run?.run ?? "none")
          id = run?.id ?? ""
          yield* TestClock.adjust(MailWorker.retryDelayMillis(attempt))
        }
        assert.deepStrictEqual(runs, [...Array(MailWorker.maxMailAttempts - 1).fill("retry_later"), "failed"])
        assert.strictEqual(yield* stateOf(id), "failed")
        smtp.refuse = false
        yield* TestClock.adjust(7 * 24 * 3_600_000)
        assert.deepStrictEqual(yield* MailWorker.sendQueuedMails(), [])
        assert.strictEqual(smtp.received.length, 0)
      })
    ).pipe(Effect.provide(teamUseCases))
  )

  it.effect("a server that cannot be reached leaves the mail queued for a later attempt", () =>
    withSmtp(
      () =>
        Effect.gen(function* () {
          yield* queueInvites(["a@team.example"])
          const [run] = yield* MailWorker.sendQueuedMails()
          assert.strictEqual(run?.run, "retry_later")
          assert.strictEqual(yield* stateOf(run?.id ?? ""), "queued")
        }),
      // A port nothing listens on.
      "smtp://127.0.0.1:9"
    ).pipe(Effect.provide(teamUseCases))
  )
})

describe("MailWorker.retryDelayMillis", () => {
  it("doubles from 10 s up to an hour", () => {
    assert.deepStrictEqual(
      [1, 2, 3, 4, 9, 12].map(MailWorker.retryDelayMillis),
      [10_000, 20_000, 40_000, 80_000, 2_560_000, 3_600_000]
    )
  })
})
