/**
 * A stable embedded chain (issue 35, item 4): anvil listens on the port `ANVIL_PORT` chose, or the one the data
 * directory kept in `embedded.json`, at every start, so the RPC URL and the deposit command `npm start` prints still
 * work after a restart; a port something else holds stops the start with one line naming it.
 */
import { execFile } from "node:child_process"
import { readFileSync, writeFileSync } from "node:fs"
import { createServer } from "node:net"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { privateKeyToAccount } from "viem/accounts"
import { freePort, poll, refusedStart, startNpm, stopGracefully, tempDir } from "../test/NpmStart.ts"
import { call, signIn } from "../test/TestServer.ts"

/** What a start printed: the chain's RPC URL, the deposit command, the demo team and its admin's key. */
const printed = (output: string) => ({
  chain: /Chain: +(http:\/\/\S+) \(chain id (\d+)/.exec(output)?.slice(1, 3) ?? [],
  command: /Send it 250 test USDC \(a deposit\): (curl .+)$/m.exec(output)?.[1] ?? "",
  team: /Demo team: +(te-\S{12})/.exec(output)?.[1] ?? "",
  key: (/Demo admin key: +(0x[0-9a-f]{64})/.exec(output)?.[1] ?? "0x") as `0x${string}`
})

/** Runs a printed command as a person would paste it into a shell: its standard output. */
const shell = (command: string) =>
  Effect.callback<string, Error>((resume) => {
    execFile("sh", ["-c", command], { timeout: 30_000 }, (error, stdout) =>
      resume(error === null ? Effect.succeed(stdout) : Effect.fail(error))
    )
  })

/** Something else listening on `port` for the scope. */
const holdPort = (port: number) =>
  Effect.acquireRelease(
    Effect.callback<ReturnType<typeof createServer>>((resume) => {
      const holder = createServer()
      holder.listen(port, "127.0.0.1", () => resume(Effect.succeed(holder)))
    }),
    (holder) => Effect.sync(() => holder.close())
  )

describe("the embedded chain across restarts", () => {
  it.live(
    "ANVIL_PORT chooses anvil's port, the data directory keeps it, and the deposit command printed at the first start works after a restart",
    () =>
      Effect.gen(function* () {
        const dir = yield* tempDir
        const port = yield* freePort
        const first = yield* Effect.scoped(
          Effect.gen(function* () {
            const started = yield* startNpm({ SVC_DATA_DIR: dir, ANVIL_PORT: String(port) })
            yield* stopGracefully(started)
            return printed(started.output())
          })
        )
        assert.deepStrictEqual(first.chain, [`http://127.0.0.1:${port}`, "42161"])
        assert.strictEqual(JSON.parse(readFileSync(join(dir, "embedded.json"), "utf8")).anvilPort, port)
        assert.include(first.command, `curl -s http://127.0.0.1:${port} `)

        // Started again without ANVIL_PORT: the same chain URL, and the first start's command sends the deposit.
        const again = yield* startNpm({ SVC_DATA_DIR: dir })
        assert.deepStrictEqual(printed(again.output()).chain, first.chain)
        const sent = yield* shell(first.command)
        assert.match(sent, /"result":"0x[0-9a-f]{64}"/)
        assert.notInclude(sent, '"error"')
        const token = yield* signIn({ baseUrl: again.base }, privateKeyToAccount(first.key))
        const deposit = yield* poll(
          "the 250 USDC deposit",
          Effect.map(
            call({ baseUrl: again.base }, "GET", `/v2/deposits?team_nanoid=${first.team}`, { token }),
            (answer) =>
              answer.body.data.items.find(
                (item: { amount_cents: number; state: string }) =>
                  item.amount_cents === 25_000 && item.state === "confirmed"
              )
          )
        )
        assert.strictEqual(deposit.kind, "received")
      }).pipe(Effect.scoped),
    120_000
  )

  it.live("a port in use, chosen by ANVIL_PORT or kept by the data directory, stops the start with one line", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const port = yield* freePort
      yield* holdPort(port)
      const chosen = yield* refusedStart({ SVC_DATA_DIR: dir, ANVIL_PORT: String(port) })
      assert.strictEqual(chosen.code, 1, chosen.output)
      assert.strictEqual(
        chosen.output.trim(),
        `svc cannot start: the embedded chain's port 127.0.0.1:${port} (ANVIL_PORT) is already in use: stop what holds it, or choose another with ANVIL_PORT`
      )
      writeFileSync(join(dir, "embedded.json"), JSON.stringify({ jwtSecret: "k".repeat(48), anvilPort: port }))
      const kept = yield* refusedStart({ SVC_DATA_DIR: dir })
      assert.strictEqual(kept.code, 1, kept.output)
      assert.strictEqual(
        kept.output.trim(),
        `svc cannot start: the embedded chain's port 127.0.0.1:${port} (kept in ${dir}/embedded.json) is already in use: stop what holds it, or choose another with ANVIL_PORT`
      )
    }).pipe(Effect.scoped)
  )
})
