/**
 * A team with one webhook endpoint, made by its admin, for the webhook use-case tests; and what the dispatcher's steps
 * run on, with a local receiver for them to deliver to.
 */
import { createHmac, timingSafeEqual } from "node:crypto"
import { createServer, type IncomingHttpHeaders, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { HttpWebhookSender } from "@svc/adapters/webhooks"
import { Effect, Layer } from "effect"
import type { WebhookId } from "../src/Ids.ts"
import { TeamAccess } from "../src/membership/index.ts"
import { createWebhook } from "../src/webhook/CreateWebhook.ts"
import type { DeliverySettings } from "../src/webhook/DeliverDue.ts"
import { defaultRetrySchedule, type RetrySchedule } from "../src/webhook/WebhookDelivery.ts"
import { WebhookSecretBox } from "../src/webhook/WebhookSender.ts"
import { seedTeam, webhookBody, webhookLayerWith } from "./UseCaseKit.ts"

/** The seeded team (`seedTeam`) and its admin's endpoint. */
export const seedEndpoint = Effect.gen(function* () {
  const seeded = yield* seedTeam
  const created = yield* createWebhook(seeded.admin, webhookBody(seeded.team))
  return { ...seeded, endpoint: created.webhook_nanoid as WebhookId, secret: created.secret }
})

/**
 * What the dispatcher's steps run on in a test: the webhook ports over storage, URLs on 127.0.0.1 over plain http
 * allowed (the receiver is a local server), and the adapters' HTTP sender.
 */
export const dispatcherLayer = TeamAccess.layer.pipe(
  Layer.provideMerge(
    HttpWebhookSender.layer.pipe(Layer.provideMerge(webhookLayerWith({ requireHttps: false, allowPrivate: true })))
  )
)

/** The delivery step's settings: DESIGN §5's schedule unless given, secrets opened by the layer's box. */
export const deliverySettings = (schedule: RetrySchedule = defaultRetrySchedule) =>
  WebhookSecretBox.use(
    (box): Effect.Effect<DeliverySettings> =>
      Effect.succeed({ schedule, leaseMillis: 60_000, batch: 10, timeoutMillis: 5_000, open: box.open })
  )

/** A request the receiver got. */
export interface ReceivedRequest {
  readonly path: string
  readonly headers: IncomingHttpHeaders
  readonly body: string
}

/** A local `node:http` receiver: every request it got, answered as `answer` says (200 with no body unless set). */
export interface Receiver {
  readonly url: string
  readonly received: ReadonlyArray<ReceivedRequest>
  answer: (request: ReceivedRequest) => {
    readonly status: number
    readonly headers?: Record<string, string>
    readonly body?: string
  }
}

/** Starts a receiver on 127.0.0.1 for the current scope. */
export const startReceiver = Effect.acquireRelease(
  Effect.callback<{ readonly server: Server; readonly receiver: Receiver }>((resume) => {
    const received: Array<ReceivedRequest> = []
    const receiver: Receiver = { url: "", received, answer: () => ({ status: 200 }) }
    const server = createServer((req, res) => {
      const chunks: Array<Buffer> = []
      req.on("data", (chunk: Buffer) => chunks.push(chunk))
      req.on("end", () => {
        const request = { path: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks).toString("utf8") }
        received.push(request)
        const { status, headers, body } = receiver.answer(request)
        res.writeHead(status, headers).end(body)
      })
    })
    server.listen(0, "127.0.0.1", () => {
      ;(receiver as { url: string }).url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`
      resume(Effect.succeed({ server, receiver }))
    })
  }),
  ({ server }) =>
    Effect.callback<void>((resume) => {
      server.closeAllConnections()
      server.close(() => resume(Effect.void))
    })
).pipe(Effect.map(({ receiver }) => receiver))

/**
 * Whether `request` carries a Standard Webhooks signature by `secret` (`webhook-signature`: space-separated
 * `v1,<base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}">`, keyed with the base64 after `whsec_`),
 * checked here from the specification, not with the code that signs.
 */
export const signedBy = (request: ReceivedRequest, secret: string): boolean => {
  const key = Buffer.from(secret.slice("whsec_".length), "base64")
  const signed = `${request.headers["webhook-id"]}.${request.headers["webhook-timestamp"]}.${request.body}`
  const expected = Buffer.from(createHmac("sha256", key).update(signed).digest("base64"))
  return String(request.headers["webhook-signature"] ?? "")
    .split(" ")
    .some((entry) => {
      const [version, signature = ""] = entry.split(",")
      const given = Buffer.from(signature)
      return version === "v1" && given.length === expected.length && timingSafeEqual(given, expected)
    })
}
