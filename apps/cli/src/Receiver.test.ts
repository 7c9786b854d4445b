/**
 * The receiver of `svc listen` over real HTTP: a delivery signed as Standard Webhooks says (signed here by the
 * `standardwebhooks` package itself) is verified and handed on; a changed body or another secret is refused with 400.
 */
import { randomBytes } from "node:crypto"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { Webhook } from "standardwebhooks"
import { type ReceiverReport, startReceiver } from "./Receiver.ts"

const secret = `whsec_${randomBytes(32).toString("base64")}`

const deliver = (url: string, body: string, signingSecret: string) =>
  Effect.promise(async () => {
    const id = "msg_test"
    const timestamp = new Date()
    const signature = new Webhook(signingSecret).sign(id, timestamp, body)
    const response = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "webhook-id": id,
        "webhook-timestamp": String(Math.floor(timestamp.getTime() / 1000)),
        "webhook-signature": signature
      },
      body
    })
    return response.status
  })

describe("Receiver", () => {
  it.live("verifies Standard Webhooks signatures and refuses anything else", () =>
    Effect.gen(function* () {
      const reports: Array<ReceiverReport> = []
      const base = yield* startReceiver({
        host: "127.0.0.1",
        port: 0,
        secret: () => secret,
        onReport: (r) => void reports.push(r)
      })
      const body = JSON.stringify({
        object: "event",
        id: "ev_1",
        event_type: "payment.sent",
        data: { amount_cents: 1234 }
      })
      assert.strictEqual(yield* deliver(`${base}/webhooks`, body, secret), 200)
      const other = `whsec_${randomBytes(32).toString("base64")}`
      assert.strictEqual(yield* deliver(`${base}/webhooks`, body, other), 400)
      assert.strictEqual(reports.length, 2)
      const [verified, rejected] = reports
      assert.strictEqual(verified?._tag, "Verified")
      if (verified?._tag === "Verified") {
        assert.strictEqual(verified.delivery.body, body)
        assert.strictEqual(verified.delivery.event.event_type, "payment.sent")
        assert.strictEqual(verified.delivery.headers["webhook-id"], "msg_test")
      }
      assert.strictEqual(rejected?._tag, "Rejected")
    }).pipe(Effect.scoped)
  )
})
