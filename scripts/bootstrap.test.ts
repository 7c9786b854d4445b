/**
 * The bootstrap on a warm checkout (issue 20, item 5): `npm test` installed the workspace and left its stamp, so
 * `npm run svc` (here its script, `node scripts/bootstrap.mjs svc`) runs no install and prints nothing but the
 * command's own output.
 */
import { execFile } from "node:child_process"
import { existsSync } from "node:fs"
import { join, resolve } from "node:path"
import { assert, describe, it } from "vitest"

const root = resolve(import.meta.dirname, "..")

describe("bootstrap", () => {
  it("on a warm checkout runs the command at once: no install, nothing on stderr", { timeout: 120_000 }, async () => {
    const svcHelp = () =>
      new Promise<{ code: number; stdout: string; stderr: string }>((done) => {
        execFile(
          process.execPath,
          [join(root, "scripts", "bootstrap.mjs"), "svc", "--help"],
          { cwd: root },
          (error, out, err) => done({ code: error === null ? 0 : Number(error.code ?? 1), stdout: out, stderr: err })
        )
      })
    // `npm test` left the stamp; after a manifest changed (a developer's own run) one run installs and leaves it.
    const first = await svcHelp()
    const warm = first.stderr === "" ? first : await svcHelp()
    assert.isTrue(existsSync(join(root, "node_modules", ".svc-install-stamp")), "the install left no stamp")
    assert.strictEqual(warm.code, 0, warm.stderr)
    assert.strictEqual(warm.stderr, "")
    assert.match(warm.stdout, /invites/)
  })
})
