/**
 * Every benchmark that has a smoke mode runs in it here, inside `npm test`, so a benchmark that stopped working is
 * found by the next test run rather than by its next user. A benchmark has a smoke mode when it reads `BENCH_SMOKE`:
 * then it runs its own code paths with tiny counts, prints its table and writes nothing. Only that it ran to the end
 * and printed its figures is checked: timing belongs to the benchmark itself.
 */
import { execFile } from "node:child_process"
import { readdirSync, readFileSync } from "node:fs"
import { join, relative, resolve } from "node:path"
import { assert, describe, it } from "vitest"

const root = resolve(import.meta.dirname, "..")

/** The `*.bench.ts` files under `dir`, skipping dependencies and build output. */
const benchesUnder = (dir: string): Array<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name === "node_modules" || entry.name === "build" || entry.name.startsWith(".")) return []
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return benchesUnder(path)
    return entry.name.endsWith(".bench.ts") ? [path] : []
  })

const allBenches = ["apps", "packages"]
  .flatMap((dir) => benchesUnder(join(root, dir)))
  .map((file) => relative(root, file))
  .sort()
const benches = allBenches.filter((file) => readFileSync(join(root, file), "utf8").includes("BENCH_SMOKE"))

// Each benchmark is its own process with its own chain, store and ports, mostly waiting on blocks and sockets: they
// run side by side, as many at once as `maxConcurrency` in vitest.config.ts allows.
describe("benchmarks in smoke mode", { concurrent: true }, () => {
  it("finds every benchmark, each with a smoke mode", () => {
    // Every benchmark has one: a new benchmark without it, or one that loses it, fails here.
    assert.deepStrictEqual(benches, allBenches)
    assert.includeMembers(benches, [
      "apps/api/bench/api-team-users.bench.ts",
      "apps/api/bench/noisy-neighbour.bench.ts",
      "apps/api/bench/outage.bench.ts",
      "apps/api/bench/payments.bench.ts",
      "apps/api/bench/settlement-faults.bench.ts",
      "apps/api/bench/soak.bench.ts",
      "apps/api/bench/webhooks.bench.ts",
      "apps/migrate/bench/id-map.bench.ts",
      "apps/migrate/bench/proxy.bench.ts",
      "packages/adapters/bench/chain-settlement.bench.ts",
      "packages/adapters/bench/chaos.bench.ts",
      "packages/adapters/bench/deposits-catchup.bench.ts",
      "packages/adapters/bench/pay-schedules.bench.ts",
      "packages/adapters/bench/row-decoder.bench.ts",
      "packages/domain/bench/domain-verify.bench.ts"
    ])
  })

  for (const bench of benches) {
    it(`${bench} runs to the end and prints its table`, { timeout: 120_000 }, async () => {
      const { code, output } = await new Promise<{ code: number; output: string }>((done) => {
        execFile(
          process.execPath,
          [bench],
          { cwd: root, env: { ...process.env, BENCH_SMOKE: "1" }, timeout: 110_000, maxBuffer: 16 * 1024 * 1024 },
          (error, stdout, stderr) =>
            done({ code: error === null ? 0 : Number(error.code ?? 1), output: stdout + stderr })
        )
      })
      assert.strictEqual(code, 0, output.slice(-2_000))
      assert.match(output, /^## .+$/m, "no heading printed")
      assert.match(output, /^\| .+ \|$/m, "no table printed")
    })
  }
})
