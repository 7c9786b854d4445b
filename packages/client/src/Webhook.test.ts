/**
 * `verifyWebhook` against Standard Webhooks' own test cases: every case of the reference library's suite
 * (standard-webhooks/standard-webhooks, `libraries/javascript/src/webhook.test.ts` at b2fa7b8), the unpadded secrets of
 * the Python suite and the empty prefixed secret of the Go suite, with their secret, message id and payload. Where
 * `verifyWebhook` answers differently from the library, the case says so and why.
 */
import { createHmac } from "node:crypto"
import { describe, expect, it } from "vitest"
import { verifyWebhook, type WebhookHeaders, WebhookVerificationError } from "./Webhook.ts"

const defaultMsgID = "msg_p5jXN8AQM9LWM0D4loKWxJek"
const defaultPayload = `{"test": 2432232314}`
const defaultSecret = "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
const toleranceMillis = 5 * 60 * 1000
const now = new Date("2026-05-01T12:00:00.000Z")

/** The suite's `TestPayload`: headers signed as the library signs, at `timestamp`. */
const testPayload = (timestamp = now.getTime(), secret = defaultSecret, payload = defaultPayload) => {
  const seconds = Math.floor(timestamp / 1000)
  const signature = createHmac("sha256", Buffer.from(secret, "base64"))
    .update(`${defaultMsgID}.${seconds}.${payload}`)
    .digest("base64")
  const header: Record<string, string> = {
    "webhook-id": defaultMsgID,
    "webhook-signature": `v1,${signature}`,
    "webhook-timestamp": String(seconds)
  }
  return { header, payload, signature }
}

const verify = (secret: string | ReadonlyArray<string>, body: string, headers: WebhookHeaders) =>
  verifyWebhook({ secret, body, headers, now })

const refused = (secret: string | ReadonlyArray<string>, body: string, headers: WebhookHeaders) =>
  expect(() => verify(secret, body, headers)).toThrow(WebhookVerificationError)

describe("verifyWebhook: Standard Webhooks' test cases", () => {
  it("empty key raises error (refused at the call, with a message that says so)", () => {
    const { header, payload } = testPayload()
    for (const secret of ["", "whsec_", undefined, null] as const) {
      expect(() => verify(secret as unknown as string, payload, header)).toThrow(/secret is empty/)
    }
    // The open door it closes: a delivery signed with an empty HMAC key, offered to a receiver without its secret.
    const keyless = testPayload(now.getTime(), "")
    expect(() => verify("whsec_", keyless.payload, keyless.header)).toThrow(/secret is empty/)
    // The Go suite's empty prefixed secret, in a list beside a good one: one empty secret is a mistake, refused too.
    expect(() => verify([defaultSecret, "whsec_"], payload, header)).toThrow(WebhookVerificationError)
    expect(() => verify([], payload, header)).toThrow(/no webhook secret/)
  })

  it("missing id, timestamp or signature raises error", () => {
    for (const name of ["webhook-id", "webhook-timestamp", "webhook-signature"]) {
      const { header, payload } = testPayload()
      delete header[name]
      refused(defaultSecret, payload, header)
    }
  })

  it("invalid timestamp throws error", () => {
    const { header, payload } = testPayload()
    refused(defaultSecret, payload, { ...header, "webhook-timestamp": "hello" })
  })

  it("invalid and partial signatures throw error", () => {
    const { header, payload } = testPayload()
    refused(defaultSecret, payload, { ...header, "webhook-signature": "v1,dawfeoifkpqwoekfpqoekf" })
    refused(defaultSecret, payload, { ...header, "webhook-signature": header["webhook-signature"]!.slice(0, 8) })
    refused(defaultSecret, payload, { ...header, "webhook-signature": "v1," })
  })

  it("valid signature is valid and returns valid json, unbranded headers too", () => {
    const { header, payload } = testPayload()
    expect(verify(defaultSecret, payload, header)).toEqual({ test: 2432232314 })
    expect(verify(defaultSecret, payload, new Headers(header))).toEqual({ test: 2432232314 })
  })

  it("old and new timestamps fail", () => {
    const old = testPayload(now.getTime() - toleranceMillis - 1000)
    refused(defaultSecret, old.payload, old.header)
    const future = testPayload(now.getTime() + toleranceMillis + 1000)
    refused(defaultSecret, future.payload, future.header)
  })

  it("multi sig payload is valid", () => {
    const { header, payload } = testPayload()
    const signatures = [
      "v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc=",
      "v2,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc=",
      header["webhook-signature"],
      "v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc="
    ]
    expect(verify(defaultSecret, payload, { ...header, "webhook-signature": signatures.join(" ") })).toEqual({
      test: 2432232314
    })
  })

  it("verification works with and without the whsec_ prefix, and with unpadded secrets (Python suite)", () => {
    const { header, payload } = testPayload()
    expect(verify(`whsec_${defaultSecret}`, payload, header)).toEqual({ test: 2432232314 })
    for (const [unpadded, padded] of [
      ["MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaS", "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaS="],
      ["MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwBr", "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwBr=="]
    ] as const) {
      const signed = testPayload(now.getTime(), padded)
      expect(verify(unpadded, signed.payload, signed.header)).toEqual({ test: 2432232314 })
      expect(verify(`whsec_${unpadded}`, signed.payload, signed.header)).toEqual({ test: 2432232314 })
    }
  })

  it("the sign function's fixed vector verifies at its time", () => {
    const headers = {
      "webhook-id": "msg_p5jXN8AQM9LWM0D4loKWxJek",
      "webhook-timestamp": "1614265330",
      "webhook-signature": "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
    }
    const at = new Date(1614265330 * 1000)
    const body = '{"test": 2432232314}'
    expect(verifyWebhook({ secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", body, headers, now: at })).toEqual({
      test: 2432232314
    })
    expect(() =>
      verifyWebhook({ secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", body: `${body} `, headers, now: at })
    ).toThrow(WebhookVerificationError)
  })

  it("empty payload: the library answers undefined; verifyWebhook answers events only, so it refuses it", () => {
    // A signed empty body is no svc event: refused with WebhookVerificationError rather than answered as undefined
    // (verifyWebhook's result is the event, never undefined). Non-JSON bodies likewise.
    const empty = testPayload(now.getTime(), defaultSecret, "")
    expect(() => verify(defaultSecret, empty.payload, empty.header)).toThrow(/not a JSON event/)
    const text = testPayload(now.getTime(), defaultSecret, "plain text")
    expect(() => verify(defaultSecret, text.payload, text.header)).toThrow(/not a JSON event/)
  })
})
