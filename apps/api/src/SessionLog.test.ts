/**
 * The log of a short session on `npm start` (issue 35, item 5), as a person reads it at a terminal: one line at the
 * start, one per request (probes at `debug`, so none here), the invite mail as one marked block with its link first,
 * and one line when a graceful stop is done. No JWT, and no invite token outside the mail block.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { privateKeyToAccount } from "viem/accounts"
import { poll, startNpm, stopGracefully, tempDir } from "../test/NpmStart.ts"
import { call, signIn } from "../test/TestServer.ts"

/** A log line (as opposed to the demo summary printed beside them): time, level, text. */
const logLine = /^\d\d:\d\d:\d\d\.\d{3} (DEBUG|INFO |WARN |ERROR|FATAL) /

describe("a short session's log", () => {
  it.live("one line at start, one per request, the invite link first in a marked block, one line at stop", () =>
    Effect.gen(function* () {
      const started = yield* startNpm({ SVC_DATA_DIR: yield* tempDir })
      const server = { baseUrl: started.base }
      const team = /Demo team: +(te-\S{12})/.exec(started.output())?.[1] ?? ""
      const key = /Demo admin key: +(0x[0-9a-f]{64})/.exec(started.output())?.[1] as `0x${string}`
      // Two requests to sign in, then five more; the probes a load balancer and a scraper send are not counted.
      const token = yield* signIn(server, privateKeyToAccount(key))
      const requests = [
        ["GET", "/v2/user/teams"],
        ["GET", `/v2/teams/${team}/users`],
        ["POST", "/v2/invites"],
        ["GET", `/v2/invites?nanoid=${team}`],
        ["GET", "/v2/teams/te-AAAAAAAAAAAA"]
      ] as const
      for (const [method, path] of requests) {
        const body =
          method === "POST"
            ? { nanoid: team, invites: [{ email: "new.hire@example.com" }], role: "team_employee", anonymous: false }
            : undefined
        yield* call(server, method, path, { token, body })
      }
      for (const probe of ["/health", "/ready", "/metrics"]) yield* call(server, "GET", probe)
      yield* poll(
        "the invite mail",
        Effect.sync(() => (started.output().includes("END OF MAIL") ? true : undefined))
      )
      yield* stopGracefully(started)
      assert.strictEqual(started.child.exitCode, 0)

      const output = started.output()
      const lines = output.split("\n").filter((line) => logLine.test(line))
      const requestLines = lines.filter((line) => / INFO {2}(GET|POST|PUT|DELETE) \//.test(line))
      assert.deepStrictEqual(
        requestLines.map((line) =>
          line.replace(logLine, "").replace(/ \d+(\.\d+)? ms request_id=req_[0-9a-f]{32}$/, "")
        ),
        [
          "GET /v2/auth/siwe 200",
          "POST /v2/auth/verify 200",
          "GET /v2/user/teams 200",
          `GET /v2/teams/${team}/users 200`,
          "POST /v2/invites 200",
          `GET /v2/invites 200`,
          "GET /v2/teams/te-AAAAAAAAAAAA 404"
        ]
      )
      // Everything else the session logged: the start, the mail and the stop, one line (or block) each.
      const others = lines.filter((line) => !requestLines.includes(line)).map((line) => line.replace(logLine, ""))
      assert.strictEqual(others.length, 3, others.join("\n"))
      assert.match(others[0] ?? "", /^svc API at http:\/\/127\.0\.0\.1:\d+ .*embedded SQLite at .*, anvil at http/)
      assert.match(others[1] ?? "", /^MAIL to new\.hire@example\.com =+$/)
      assert.match(others[2] ?? "", /^svc API stopped in \d+\.\d s: requests in flight answered, workers stopped/)
      assert.strictEqual(lines.at(-1), output.trimEnd().split("\n").at(-1))
      // The block: its link first, then the mail; the token appears there and nowhere else, and no JWT at all.
      const block = output.slice(output.indexOf("MAIL to new.hire"), output.indexOf("END OF MAIL"))
      const link = /^ {2}Link: {4}(http:\/\/\S+\/invites\/accept\?invite=in-[\w-]{12}&token=([0-9a-f]{64}))$/m.exec(
        block.split("\n")[1] ?? ""
      )
      assert.isNotNull(link, block)
      assert.strictEqual(output.split(link?.[2] ?? "-").length - 1, 2, "the token is in the block's link and text only")
      assert.strictEqual(output.indexOf(link?.[2] ?? "-") > output.indexOf("MAIL to new.hire"), true)
      assert.notInclude(output, token)
    }).pipe(Effect.scoped)
  )
})
