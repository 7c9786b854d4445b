/**
 * The contract's bounds (issue 14, defect 1 and the OpenAPI rough edges), over real HTTP: every string and array a
 * request carries is bounded and OpenAPI shows it, over-long input answers 400 and writes nothing, and each operation
 * documents the error codes it can answer.
 */
import { DatabaseSync } from "node:sqlite"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { type CallResult, call, seedTeam, signIn, startTestServer, type TestServer } from "../test/TestServer.ts"

/** A JSON Schema node as the served document has it. */
interface Node {
  readonly $ref?: string
  readonly type?: string
  readonly pattern?: string
  readonly maxLength?: number
  readonly maxItems?: number
  readonly maxProperties?: number
  readonly enum?: ReadonlyArray<unknown>
  readonly const?: unknown
  readonly items?: Node | false
  readonly prefixItems?: ReadonlyArray<Node>
  readonly properties?: Record<string, Node>
  readonly additionalProperties?: Node | boolean
  readonly allOf?: ReadonlyArray<Node>
  readonly anyOf?: ReadonlyArray<Node>
  readonly oneOf?: ReadonlyArray<Node>
  readonly minimum?: number
  readonly maximum?: number
}

interface Parameter {
  readonly name: string
  readonly in: string
  readonly schema: Node
}

interface Response {
  readonly description: string
  readonly content?: Record<string, { readonly schema: Node }>
}

interface Operation {
  readonly parameters?: ReadonlyArray<Parameter>
  readonly requestBody?: { readonly content: Record<string, { readonly schema: Node }> }
  readonly responses: Record<string, Response>
}

interface Document {
  readonly paths: Record<string, Record<string, Operation>>
  readonly components: { readonly schemas: Record<string, Node>; readonly securitySchemes?: Record<string, unknown> }
  readonly info: { readonly description?: string }
}

/** A pattern bounds a string when it is anchored and repeats nothing without an upper bound. */
const isBoundedPattern = (pattern: string) => {
  if (!pattern.startsWith("^") || !pattern.endsWith("$")) return false
  const outsideClasses = pattern.replace(/\\./g, "").replace(/\[[^\]]*\]/g, "")
  return !/[*+]|\{\d+,\}/.test(outsideClasses)
}

/** Every request string without a bound and every request array without `maxItems`, as "where: what". */
const unboundedInputs = (document: Document): ReadonlyArray<string> => {
  const resolve = (node: Node): Node =>
    node.$ref === undefined ? node : resolve(document.components.schemas[node.$ref.split("/").pop() ?? ""] ?? {})
  const findings: Array<string> = []
  const walk = (start: Node, at: string, seen: Set<Node>): void => {
    const node = resolve(start)
    if (seen.has(node)) return
    seen.add(node)
    const parts = [node, ...(node.allOf ?? []).map(resolve)]
    const has = (key: keyof Node) => parts.some((part) => part[key] !== undefined)
    for (const alternative of [...(node.anyOf ?? []), ...(node.oneOf ?? [])]) walk(alternative, at, seen)
    if (node.type === "string") {
      const bounded =
        has("maxLength") ||
        has("enum") ||
        has("const") ||
        parts.some((part) => part.pattern !== undefined && isBoundedPattern(part.pattern))
      if (!bounded) findings.push(`${at}: a string without maxLength, enum or bounded pattern`)
    }
    if (node.type === "array") {
      if (!has("maxItems") && node.items !== false) findings.push(`${at}: an array without maxItems`)
      if (node.items !== undefined && node.items !== false) walk(node.items, `${at}[]`, seen)
      for (const [index, item] of (node.prefixItems ?? []).entries()) walk(item, `${at}[${index}]`, seen)
    }
    for (const [name, property] of Object.entries(node.properties ?? {})) walk(property, `${at}.${name}`, seen)
    if (typeof node.additionalProperties === "object") {
      if (!has("maxProperties")) findings.push(`${at}: an open object without maxProperties`)
      walk(node.additionalProperties, `${at}.*`, seen)
    }
  }
  for (const [path, operations] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const where = `${method.toUpperCase()} ${path}`
      for (const parameter of operation.parameters ?? []) {
        walk(parameter.schema, `${where} ${parameter.in} ${parameter.name}`, new Set())
      }
      for (const [type, media] of Object.entries(operation.requestBody?.content ?? {})) {
        walk(media.schema, `${where} body (${type})`, new Set())
      }
    }
  }
  return findings
}

const parameterOf = (document: Document, method: string, path: string, name: string): Parameter => {
  const parameter = document.paths[path]?.[method]?.parameters?.find((p) => p.name === name)
  assert.isDefined(parameter, `${method} ${path} ${name}`)
  return parameter as Parameter
}

const bodyOf = (document: Document, method: string, path: string): Node => {
  const schema = document.paths[path]?.[method]?.requestBody?.content["application/json"]?.schema
  assert.isDefined(schema, `${method} ${path} body`)
  const node = schema as Node
  return node.$ref === undefined ? node : (document.components.schemas[node.$ref.split("/").pop() ?? ""] ?? {})
}

/** The documented `error_code`s of each error status of an operation. */
const documentedCodes = (document: Document, method: string, path: string) => {
  const operation = document.paths[path]?.[method]
  assert.isDefined(operation, `${method} ${path}`)
  const codes: Record<string, ReadonlyArray<string>> = {}
  for (const [status, response] of Object.entries(operation?.responses ?? {})) {
    if (Number(status) < 400) continue
    const schema = response.content?.["application/json"]?.schema
    codes[status] = (schema?.properties?.error_code?.enum ?? []).map(String)
  }
  return codes
}

const served = (server: TestServer) =>
  Effect.map(call(server, "GET", "/openapi.json"), (response) => {
    assert.strictEqual(response.status, 200)
    return response.body as Document
  })

const assertValidationError = (response: CallResult) => {
  assert.strictEqual(response.status, 400, JSON.stringify(response.body))
  assert.deepStrictEqual(Object.keys(response.body).sort(), ["data", "error_code", "request_id", "success"])
  assert.strictEqual(response.body.error_code, "VALIDATION_ERROR")
}

describe("the contract's bounds", () => {
  it.live("every request string and array in the served OpenAPI is bounded", () =>
    Effect.gen(function* () {
      const server = yield* startTestServer
      const document = yield* served(server)
      assert.deepStrictEqual(unboundedInputs(document), [])
    }).pipe(Effect.scoped)
  )

  it.live("OpenAPI shows nanoid, wallet and signature patterns and the paging ranges", () =>
    Effect.gen(function* () {
      const server = yield* startTestServer
      const document = yield* served(server)
      const team = parameterOf(document, "get", "/v2/teams/{team_nanoid}", "team_nanoid").schema
      assert.strictEqual(team.pattern, "^te-[0-9A-Za-z_-]{12}$")
      assert.strictEqual(team.maxLength, 15)
      const user = parameterOf(document, "get", "/v2/teams/{team_nanoid}/member/{user_nanoid}/summary", "user_nanoid")
      assert.strictEqual(user.schema.pattern, "^us-[0-9A-Za-z_-]{12}$")
      const execute = bodyOf(document, "put", "/v2/payments").properties ?? {}
      assert.strictEqual(execute.signer?.pattern, "^0x[a-fA-F0-9]{40}$")
      assert.strictEqual(execute.signature?.pattern, "^0x(?!0{130}$)[a-fA-F0-9]{130}$")
      assert.strictEqual(execute.from?.pattern, "^te-[0-9A-Za-z_-]{12}$")
      assert.strictEqual(execute.to?.maxItems, 1000)
      // An entry is a member and an amount, or a member's invoice (docs/invoices.md).
      const items = execute.to?.items === false ? undefined : execute.to?.items
      const [entry, invoiceEntry] = items?.anyOf ?? []
      assert.strictEqual(entry?.properties?.invoice_description?.maxLength, 1000)
      assert.strictEqual(invoiceEntry?.properties?.invoice_nanoid?.pattern, "^iv-[0-9A-Za-z_-]{1,61}$")
      const wallet = parameterOf(document, "get", "/v2/auth/siwe", "wallet").schema
      assert.strictEqual(wallet.pattern, "^0x[a-fA-F0-9]{40}$")
      const users = "/v2/teams/{team_nanoid}/users"
      assert.deepInclude(parameterOf(document, "get", users, "page").schema, { minimum: 1, maximum: 2000 })
      assert.deepInclude(parameterOf(document, "get", users, "offset").schema, { minimum: 0, maximum: 1_000_000 })
      assert.deepInclude(parameterOf(document, "get", users, "count").schema, { minimum: 1, maximum: 500 })
      assert.strictEqual(parameterOf(document, "get", users, "emails").schema.maxItems, 100)
    }).pipe(Effect.scoped)
  )

  it.live("each operation documents only the errors it can answer, with their codes", () =>
    Effect.gen(function* () {
      const server = yield* startTestServer
      const document = yield* served(server)
      const health = documentedCodes(document, "get", "/health")
      assert.notProperty(health, "401")
      assert.notProperty(health, "404")
      // `/health` is never rate limited (docs/operations.md), so it documents no 429.
      assert.notProperty(health, "429")
      const execute: Record<string, ReadonlyArray<string> | undefined> = documentedCodes(
        document,
        "put",
        "/v2/payments"
      )
      assert.include(execute["409"] ?? [], "ALREADY_EXECUTED")
      assert.include(execute["410"] ?? [], "EXPIRED_TYPED_DATA")
      assert.include(execute["401"] ?? [], "UNAUTHORIZED")
      assert.include(execute["400"] ?? [], "VALIDATION_ERROR")
      assert.deepStrictEqual(execute["429"], ["RATE_LIMITED"])
      assert.deepStrictEqual(execute["503"], ["SERVICE_UNAVAILABLE"])
      assert.notInclude(execute["404"] ?? [], "WEBHOOK_NOT_FOUND")
      const challenge = documentedCodes(document, "get", "/v2/auth/siwe")
      assert.notProperty(challenge, "401")
      assert.notProperty(challenge, "403")
      assert.notProperty(challenge, "409")
      const team = documentedCodes(document, "get", "/v2/teams/{team_nanoid}")
      assert.sameMembers([...(team["404"] ?? [])], ["INVALID_ID", "TEAM_NOT_FOUND"])
      assert.notProperty(team, "409")
      assert.notProperty(team, "410")
      const description = document.paths["/v2/payments"]?.put?.responses["409"]?.description ?? ""
      assert.include(description, "ALREADY_EXECUTED")
    }).pipe(Effect.scoped)
  )

  it.live("offers bearer auth and explains sign-in and signing on /docs", () =>
    Effect.gen(function* () {
      const server = yield* startTestServer
      const document = yield* served(server)
      const bearer = document.components.securitySchemes?.bearer
      assert.deepInclude(bearer, { type: "http", scheme: "bearer", bearerFormat: "JWT" })
      const guide = document.info.description ?? ""
      for (const step of ["GET /v2/auth/siwe", "POST /v2/auth/verify", "signTypedData", "PUT /v2/payments"]) {
        assert.include(guide, step)
      }
      const docs = yield* call(server, "GET", "/docs")
      assert.strictEqual(docs.status, 200)
      assert.include(String(docs.body), "signTypedData")
    }).pipe(Effect.scoped)
  )

  it.live("over-long text and too many entries answer 400 VALIDATION_ERROR and write nothing", () =>
    Effect.gen(function* () {
      const server = yield* startTestServer
      const { teamId, members } = yield* seedTeam(server, ["team_admin", "team_employee"])
      const token = yield* signIn(server, members[0]!.account)
      const recipient = members[1]!.user
      const entry = { to: recipient, amount_cents: 100, currency_symbol: "USD", invoice_description: "x".repeat(1001) }

      assertValidationError(
        yield* call(server, "POST", "/v2/payments", { token, body: { from: teamId, to: [entry], pay_now: true } })
      )
      assertValidationError(
        yield* call(server, "POST", "/v2/payments/external_entity/instant", {
          token,
          body: {
            from: teamId,
            amount_cents: 100,
            external_recipient_email: "someone@example.com",
            payment_data: { invoice_description: "ok", sow_link: `https://example.com/${"a".repeat(2048)}` }
          }
        })
      )
      assertValidationError(
        yield* call(server, "POST", "/v2/invites", {
          token,
          body: {
            nanoid: teamId,
            role: "team_employee",
            invites: [{ email: "new@example.com", prefill: { first_name: "n".repeat(101) } }]
          }
        })
      )
      assertValidationError(
        yield* call(server, "POST", "/v2/invites", {
          token,
          body: { nanoid: teamId, role: "team_employee", invites: [{ email: `${"a".repeat(250)}@example.com` }] }
        })
      )
      const payment = { id: `0x${"1".repeat(64)}`, groupID: `0x${"2".repeat(64)}`, payAtTime: "0", validMinutes: "0" }
      const signed = {
        ...payment,
        payType: "1",
        token: `0x${"3".repeat(40)}`,
        recipient: `0x${"4".repeat(40)}`,
        amount: "1",
        data: "0x"
      }
      assertValidationError(
        yield* call(server, "PUT", "/v2/payments", {
          token,
          body: {
            from: teamId,
            to: [{ ...entry, invoice_description: "ok" }],
            pay_now: true,
            signer: members[0]!.account.address,
            typed_data: {
              from: members[0]!.account.address,
              to: `0x${"5".repeat(40)}`,
              salt: "1",
              expires: "1",
              data: { payments: Array.from({ length: 1001 }, () => signed) }
            },
            signature: `0x${"6".repeat(130)}`
          }
        })
      )

      // Nothing was issued or invited.
      const invites = yield* call(server, "GET", `/v2/invites?nanoid=${teamId}`, { token })
      assert.strictEqual(invites.status, 200, JSON.stringify(invites.body))
      assert.deepStrictEqual(invites.body.data, [])
      assert.strictEqual(server.storage._tag, "sqlite")
      if (server.storage._tag === "sqlite") {
        const db = new DatabaseSync(server.storage.filename, { readOnly: true })
        const rows = db.prepare("SELECT COUNT(*) AS n FROM issued_requests").get() as { n: number }
        db.close()
        assert.strictEqual(rows.n, 0)
      }
    }).pipe(Effect.scoped)
  )
})
