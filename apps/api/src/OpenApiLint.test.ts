/**
 * `redocly lint` of the document the server serves (issue 21, item 2): Redocly's own engine (`@redocly/openapi-core`,
 * what `@redocly/cli lint` runs) with the repository's `redocly.yaml` (the recommended rules; a rule turned off there
 * says why), and no finding at all, warnings included. The 431 every operation documents (Node's header limit,
 * answered in the envelope before any route) is checked against the server.
 */
import { request } from "node:http"
import { resolve } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { lintFromString, loadConfig } from "@redocly/openapi-core"
import { Effect } from "effect"
import { call, startTestServer } from "../test/TestServer.ts"

// biome-ignore lint/suspicious/noExplicitAny: the document is plain JSON, read by key
type Json = any

const configPath = resolve(import.meta.dirname, "../../../redocly.yaml")

/** The status of a GET of `path` with a header of `bytes` bytes, as Node's HTTP client sends it. */
const statusWithHeader = (baseUrl: string, path: string, bytes: number) =>
  Effect.callback<number>((resume) => {
    const sent = request(`${baseUrl}${path}`, { headers: { "x-padding": "p".repeat(bytes) } }, (response) => {
      response.resume()
      resume(Effect.succeed(response.statusCode ?? 0))
    })
    sent.on("error", (error) => resume(Effect.die(error)))
    sent.end()
  })

describe("the OpenAPI document", () => {
  it.live("passes redocly lint with no error and no warning", () =>
    Effect.gen(function* () {
      const server = yield* startTestServer
      const document = (yield* call(server, "GET", "/openapi.json")).body
      const config = yield* Effect.promise(() => loadConfig({ configPath }))
      const problems = yield* Effect.promise(() =>
        lintFromString({ source: JSON.stringify(document), absoluteRef: "openapi.json", config })
      )
      assert.deepStrictEqual(
        problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} (${p.location[0]?.pointer ?? ""})`),
        []
      )
    }).pipe(Effect.scoped)
  )

  it.live("every operation documents 431, and the server answers it for headers over 16 KiB", () =>
    Effect.gen(function* () {
      const server = yield* startTestServer
      const document = (yield* call(server, "GET", "/openapi.json")).body as {
        paths: Record<string, Record<string, { responses: Record<string, unknown> }>>
      }
      for (const [path, item] of Object.entries(document.paths)) {
        for (const [method, operation] of Object.entries(item)) {
          assert.property(operation.responses, "431", `${method.toUpperCase()} ${path}`)
        }
      }
      assert.strictEqual(yield* statusWithHeader(server.baseUrl, "/ready", 20_000), 431)
      const codes = (document.paths["/ready"]?.get?.responses["431"] as Json)?.content?.["application/json"]?.schema
        ?.properties?.error_code?.enum
      assert.deepStrictEqual(codes, ["HEADERS_TOO_LARGE"])
      assert.strictEqual(yield* statusWithHeader(server.baseUrl, "/health", 100), 200)
    }).pipe(Effect.scoped)
  )
})
