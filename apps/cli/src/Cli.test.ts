import { execFile } from "node:child_process"
import { resolve } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import * as Server from "@svc/api/Server"
import { Effect, Layer } from "effect"
import { HttpServer } from "effect/http"

const bin = resolve(import.meta.dirname, "bin.ts")
const svc = (args: ReadonlyArray<string>) =>
  Effect.callback<{ code: number; stdout: string; stderr: string }>((resume) => {
    execFile(process.execPath, [bin, ...args], { timeout: 30_000 }, (error, stdout, stderr) =>
      resume(Effect.succeed({ code: typeof error?.code === "number" ? error.code : 0, stdout, stderr }))
    )
  })

const serve = Effect.gen(function* () {
  const server = yield* HttpServer.HttpServer.pipe(Effect.provide(yield* Layer.build(Server.layer({ port: 0 }))))
  return server.address._tag === "UnixPathAddress" ? "" : `http://127.0.0.1:${server.address.port}`
})

describe("svc CLI", () => {
  it.live("svc health --json prints the API's answer, as a real process over real HTTP", () =>
    Effect.gen(function* () {
      const base = yield* serve
      const result = yield* svc(["--url", base, "--json", "health"])
      assert.strictEqual(result.code, 0, result.stderr)
      assert.deepStrictEqual(JSON.parse(result.stdout), { success: true, data: { status: "ok" } })
      const human = yield* svc(["--url", base, "health"])
      assert.strictEqual(human.stdout.trim(), `${base}: ok`)
    }).pipe(Effect.scoped)
  )

  it.live("fails with a non-zero exit when the API is not there", () =>
    Effect.gen(function* () {
      const result = yield* svc(["--url", "http://127.0.0.1:9", "health"])
      assert.notStrictEqual(result.code, 0)
    })
  )
})
