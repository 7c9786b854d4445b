/**
 * The console's files as the API serves them (issue 40): the build's own files only, the app's page for any path of
 * the app, 404 for a missing asset, 503 with how to build when there is no build, and every answer under the CSP.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, assert, describe, it } from "@effect/vitest"
import { consoleAnswer, consoleContentSecurityPolicy, readConsoleFiles } from "./ConsoleRoute.ts"

const dirs: Array<string> = []
const build = (files: Record<string, string>) => {
  const dir = mkdtempSync(join(tmpdir(), "svc-console-"))
  dirs.push(dir)
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(dir, path, ".."), { recursive: true })
    writeFileSync(join(dir, path), content)
  }
  return dir
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

const bodyOf = (response: ReturnType<typeof consoleAnswer>) =>
  new TextDecoder().decode((response.body as { body: Uint8Array }).body)

describe("ConsoleRoute", () => {
  it("serves the build's files, the app's page for its paths, 404 for a missing asset; all under the CSP", () => {
    const files = readConsoleFiles(
      build({
        "index.html": "<!doctype html><title>console</title>",
        "assets/index-abc123.js": "console.log(1)",
        ".inputs": "hash"
      })
    )
    assert.deepStrictEqual([...files.keys()].sort(), ["assets/index-abc123.js", "index.html"])
    const asset = consoleAnswer(files, "assets/index-abc123.js")
    assert.strictEqual(asset.status, 200)
    assert.strictEqual(asset.headers["content-type"], "text/javascript; charset=utf-8")
    assert.strictEqual(asset.headers["cache-control"], "public, max-age=31536000, immutable")
    for (const path of ["", "te-abcdefghijkl/payments", "te-abcdefghijkl/payments/pa-abcdefghijkl"]) {
      const page = consoleAnswer(files, path)
      assert.strictEqual(page.status, 200, path)
      assert.strictEqual(bodyOf(page), "<!doctype html><title>console</title>")
      assert.strictEqual(page.headers["cache-control"], "no-cache")
      assert.strictEqual(page.headers["content-security-policy"], consoleContentSecurityPolicy)
      assert.strictEqual(page.headers["x-frame-options"], "DENY")
    }
    for (const path of ["assets/missing.js", ".inputs", "../package.json"]) {
      assert.strictEqual(consoleAnswer(files, path).status, 404, path)
    }
    assert.notInclude(consoleContentSecurityPolicy, "unsafe-inline")
    assert.include(consoleContentSecurityPolicy, "frame-ancestors 'none'")
  })

  it("answers 503 saying how to build it when there is no build", () => {
    const answer = consoleAnswer(readConsoleFiles(join(tmpdir(), "svc-console-none")), "")
    assert.strictEqual(answer.status, 503)
    assert.include(bodyOf(answer), "npm start")
  })
})
