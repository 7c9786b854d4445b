/**
 * The document tells the truth (issue 21, item 2; decision 0069): for every operation of the served `/openapi.json`,
 * requests generated from the document itself (parameters and bodies valid by its schemas, json-schema-faker with a
 * fixed seed) are sent to the server, and each answer must be one the operation documents: a documented status, and
 * for an error its `error_code` among those the document lists for that status. Path parameters are, half of the
 * time, the ids of a real team and member, so requests reach the handlers as well as the refusals.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { createGenerator } from "json-schema-faker"
import { call, seedTeam, signIn, startTestServerWith } from "../test/TestServer.ts"

// biome-ignore lint/suspicious/noExplicitAny: the document is plain JSON, read by key
type Json = any

/** Requests per operation. */
const samples = Number(process.env.CONFORMANCE_SAMPLES ?? 12)

/**
 * The rules a JSON Schema cannot state, because they relate several values: a request the schema accepts may still be
 * refused `VALIDATION_ERROR` for one of these (each is in its operation's description). Any other `VALIDATION_ERROR`
 * for a schema-valid request means the document is looser than the server.
 */
const crossFieldRules: ReadonlyArray<RegExp> = [
  // GET /v2/payments: a period that ends before it starts.
  /end_date must not be before start_date/,
  // GET /v2/teams/{team}/users: at most 100 e-mails in all the `emails` values together.
  /At most 100 e-mails may be given/,
  // POST /v2/invoices: what a flat and a time-entry invoice give, and a time entry of more than no time, at most a day.
  /A flat invoice gives amount_cents/,
  /A time_entry invoice gives time_entries and hourly_rate_usd_cents/,
  /A time entry is more than no time and at most 24 hours/
]

interface Answer {
  readonly operation: string
  readonly status: number
  readonly code: string | undefined
}

/** What `operation` says it may answer: each status, and for errors the codes listed. */
const documented = (operation: Json): Map<string, ReadonlyArray<string> | undefined> =>
  new Map(
    Object.entries(operation.responses ?? {}).map(([status, response]: [string, Json]) => [
      status,
      response?.content?.["application/json"]?.schema?.properties?.error_code?.enum as ReadonlyArray<string> | undefined
    ])
  )

describe("conformance to the served OpenAPI document", () => {
  it.live(
    "schema-valid requests to every operation are served, or refused for a reason the document states",
    () =>
      Effect.gen(function* () {
        // Rate limits are off in test servers; no dispatcher, so generated endpoint URLs are never called.
        const server = yield* startTestServerWith({ webhooks: { webhookDispatcher: false } })
        const { teamId, members } = yield* seedTeam(server, ["team_admin", "team_employee"])
        const token = yield* signIn(server, members[0]!.account)
        const document = (yield* call(server, "GET", "/openapi.json")).body as Json
        const generator = createGenerator({ seed: 21, optionalsProbability: 0.5, maxDefaultItems: 2 })
        const known: Record<string, string> = { team_nanoid: teamId, user_nanoid: members[1]!.user }
        const fake = (schema: Json) =>
          Effect.promise(() => generator.generate({ ...schema, components: document.components }))

        const answers: Array<Answer> = []
        const problems: Array<string> = []
        for (const [template, item] of Object.entries(document.paths as Record<string, Json>)) {
          for (const [method, operation] of Object.entries(item as Record<string, Json>)) {
            const allowed = documented(operation)
            for (let sample = 0; sample < samples; sample++) {
              let path = template
              const query = new URLSearchParams()
              for (const parameter of operation.parameters ?? []) {
                if (parameter.in === "path") {
                  const real = known[parameter.name]
                  const value = real !== undefined && sample % 2 === 0 ? real : String(yield* fake(parameter.schema))
                  path = path.replace(`{${parameter.name}}`, encodeURIComponent(value))
                } else if (parameter.in === "query" && (parameter.required === true || sample % 3 !== 0)) {
                  const value = yield* fake(parameter.schema)
                  for (const one of Array.isArray(value) ? value : [value]) query.append(parameter.name, String(one))
                }
              }
              const bodySchema = operation.requestBody?.content?.["application/json"]?.schema
              const body = bodySchema === undefined ? undefined : yield* fake(bodySchema)
              const url = query.size === 0 ? path : `${path}?${query}`
              const response = yield* call(server, method.toUpperCase(), url, {
                token,
                ...(body === undefined ? {} : { body })
              })
              const code = typeof response.body === "object" ? response.body?.error_code : undefined
              const name = `${method.toUpperCase()} ${template}`
              answers.push({ operation: name, status: response.status, code })
              const codes = allowed.get(String(response.status))
              if (!allowed.has(String(response.status))) {
                problems.push(`${name}: ${response.status} ${code ?? ""} is not documented (${method} ${url})`)
              } else if (response.status >= 400 && codes !== undefined && !codes.includes(code)) {
                problems.push(`${name}: ${response.status} ${code} is not among ${codes.join(", ")} (${method} ${url})`)
              } else if (
                code === "VALIDATION_ERROR" &&
                !crossFieldRules.some((rule) => rule.test(String(response.body?.data)))
              ) {
                problems.push(`${name}: a schema-valid request was refused: ${response.body?.data} (${method} ${url})`)
              }
            }
          }
        }
        assert.deepStrictEqual([...new Set(problems)], [])
        assert.isAbove(answers.length, 40 * samples - 1)
        // The requests reach the handlers, not only the refusals.
        assert.isAbove(answers.filter((answer) => answer.status < 300).length, answers.length / 10)
        assert.isFalse(answers.some((answer) => answer.status >= 500 && answer.status !== 501 && answer.status !== 503))
      }).pipe(Effect.scoped),
    { timeout: 300_000 }
  )
})
