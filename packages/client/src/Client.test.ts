/**
 * The client under `strict` (issue 35, item 1): plain strings in and out, optional fields optional, a malformed id
 * refused here as `VALIDATION_ERROR` before anything is sent, and an answer the contract does not describe told apart
 * from it (`UNEXPECTED_RESPONSE`). The client against a real server: apps/api/src/Client.test.ts and the README's
 * own code, run from the packed tarballs by apps/api/src/Consumer.test.ts.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from "vitest"
import {
  createSvcClient,
  SvcError,
  type SvcRequest,
  type SvcResult,
  type TeamUser,
  type ViemAccount,
  type WebhookDelivery,
  type WebhookEvent,
  type WebhookEventPayload
} from "./index.ts"

const account: ViemAccount = {
  address: "0x1111111111111111111111111111111111111111",
  signMessage: async () => `0x${"11".repeat(65)}`,
  signTypedData: async () => `0x${"11".repeat(65)}`
}

/** A server that counts the requests it gets and answers each with `answer`. */
const fakeApi = (answer: (request: IncomingMessage, response: ServerResponse) => void) => {
  const requests: Array<string> = []
  const server = createServer((request, response) => {
    requests.push(`${request.method} ${request.url}`)
    answer(request, response)
  })
  return { server, requests }
}

const json = (response: ServerResponse, status: number, body: unknown) => {
  response.writeHead(status, { "content-type": "application/json" })
  response.end(JSON.stringify(body))
}

describe("@svc/client in plain values", () => {
  const api = fakeApi((request, response) =>
    request.url === "/health"
      ? json(response, 200, { success: true, data: { status: "fine" } })
      : json(response, 500, {})
  )
  let baseUrl = ""
  beforeAll(async () => {
    await new Promise<void>((listening) => api.server.listen(0, "127.0.0.1", listening))
    baseUrl = `http://127.0.0.1:${(api.server.address() as AddressInfo).port}`
  })
  afterAll(() => new Promise<void>((closed) => api.server.close(() => closed())))

  it("refuses a malformed id with VALIDATION_ERROR, naming it, and sends nothing (not even a sign-in)", async () => {
    const svc = createSvcClient({ baseUrl, account })
    const before = api.requests.length
    const refused = await svc.teams.get({ params: { team_nanoid: "te-…" } }).catch((error: unknown) => error)
    expect(refused).toBeInstanceOf(SvcError)
    expect((refused as SvcError).errorCode).toBe("VALIDATION_ERROR")
    expect((refused as SvcError).status).toBeUndefined()
    expect((refused as SvcError).message).toMatch(/team id.*team_nanoid/s)
    const unpaid = await svc.payments
      .pay({ team: "te-000000000001", to: [{ to: "not-a-user", amount_cents: 100 }] })
      .catch((error: unknown) => error)
    expect((unpaid as SvcError).errorCode).toBe("VALIDATION_ERROR")
    expect(api.requests.length).toBe(before)
  })

  it("tells an answer the contract does not describe (UNEXPECTED_RESPONSE) from a request it refused", async () => {
    const svc = createSvcClient({ baseUrl, account })
    const unreadable = await svc.health().catch((error: unknown) => error)
    expect((unreadable as SvcError).errorCode).toBe("UNEXPECTED_RESPONSE")
    // `/health` needs no token: the only request is the read itself.
    expect(api.requests.at(-1)).toBe("GET /health")
    expect(api.requests.filter((request) => request.includes("/v2/auth/"))).toEqual([])
  })

  it("takes plain strings, leaves fields with a default optional, and answers plain strings", () => {
    expectTypeOf<SvcRequest<"teams", "users">>().toEqualTypeOf<{
      readonly params: { readonly team_nanoid: string }
      readonly query?: {
        readonly emails?: ReadonlyArray<string> | undefined
        readonly page?: number | undefined
        readonly offset?: number | undefined
        readonly count?: number | undefined
      }
    }>()
    // docs/webhooks.md: `description` and `version` are optional.
    expectTypeOf<{
      payload: { team_nanoid: string; url: string; events: ["payment.sent"]; name: string }
    }>().toExtend<SvcRequest<"webhooks", "create">>()
    expectTypeOf<SvcResult<"webhooks", "create">["data"]["webhook_nanoid"]>().toEqualTypeOf<string>()
    // docs/webhooks.md: each attempt of the delivery log with the start of the receiver's answer.
    expectTypeOf<WebhookDelivery["attempts"][number]["response_body"]>().toEqualTypeOf<string | null>()
    expectTypeOf<WebhookDelivery["attempts"][number]["response_body_truncated"]>().toEqualTypeOf<boolean>()
    expectTypeOf<SvcResult<"invites", "accept">["data"]["team_nanoid"]>().toEqualTypeOf<string>()
    expectTypeOf<SvcResult<"balance", "get">["data"]["svc_account_address"]>().toEqualTypeOf<`0x${string}`>()
    expectTypeOf<TeamUser["nanoid"]>().toEqualTypeOf<string>()
    // An id the API answered goes back in as it is.
    expectTypeOf<SvcResult<"invites", "create">["data"]["nanoids"][number]>().toExtend<
      SvcRequest<"invites", "revoke">["params"]["invite_nanoid"]
    >()
  })

  it("types a webhook event's payload by its kind", () => {
    expectTypeOf<
      Extract<WebhookEvent, { event_type: "payment.sent" }>["data"]["amount_cents"]
    >().toEqualTypeOf<number>()
    expectTypeOf<WebhookEventPayload<"invite.accepted">["status"]>().toEqualTypeOf<
      "accepted" | "rejected" | "expired"
    >()
    expectTypeOf<WebhookEventPayload<"deposit.received">>().toExtend<Readonly<Record<string, unknown>>>()
  })
})
