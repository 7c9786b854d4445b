import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { connect } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Scope } from "effect"
import { MongoClient } from "mongodb"
import { createPublicClient, http } from "viem"
import { inject } from "vitest"
import { anvilStateHistory, startAnvil } from "./Anvil.ts"
import { startJongodb } from "./Jongodb.ts"

/** Whether nothing accepts TCP connections at `url` any more. */
const refused = (url: string) =>
  Effect.callback<boolean>((resume) => {
    const { hostname, port } = new URL(url)
    const socket = connect({ host: hostname, port: Number(port) })
    const done = (gone: boolean) => {
      socket.destroy()
      resume(Effect.succeed(gone))
    }
    socket.once("connect", () => done(false))
    socket.once("error", () => done(true))
  })

describe("embedded infrastructure", () => {
  it.live("jongodb serves MongoDB on a free port and is gone when its scope closes", () =>
    Effect.gen(function* () {
      const scope = yield* Scope.make()
      const mongo = yield* startJongodb().pipe(Scope.provide(scope))
      const client = new MongoClient(mongo.uri, { serverSelectionTimeoutMS: 5_000 })
      const collection = client.db("embedded_test").collection<{ _id: string; n: number }>("things")
      yield* Effect.promise(() => collection.insertOne({ _id: "a", n: 1 }))
      const found = yield* Effect.promise(() => collection.findOne({ _id: "a" }))
      assert.strictEqual(found?.n, 1)
      yield* Effect.promise(() => client.close())
      yield* Scope.close(scope, Exit.void)
      assert.isTrue(yield* refused(`http://127.0.0.1:${mongo.port}`))
    })
  )

  it.live("anvil serves chain 42161 on a free port and is gone when its scope closes", () =>
    Effect.gen(function* () {
      const scope = yield* Scope.make()
      const anvil = yield* startAnvil().pipe(Scope.provide(scope))
      const client = createPublicClient({ transport: http(anvil.rpcUrl) })
      assert.strictEqual(yield* Effect.promise(() => client.getChainId()), 42161)
      yield* Scope.close(scope, Exit.void)
      assert.isTrue(yield* refused(anvil.rpcUrl))
    })
  )

  it.live("anvil keeps only the last blocks' states, so its memory does not grow with the square of the chain", () =>
    Effect.gen(function* () {
      const anvil = yield* startAnvil()
      const rpc = (method: string, params: ReadonlyArray<unknown>) =>
        Effect.promise(async () => {
          const response = await fetch(anvil.rpcUrl, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params })
          })
          return (await response.json()) as { result?: string; error?: { message: string } }
        })
      const holder = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266"
      yield* rpc("anvil_mine", [`0x${(anvilStateHistory * 3).toString(16)}`])
      // The latest state answers; one from before the kept window is gone (anvil's default keeps 500 in memory).
      assert.isAbove(Number((yield* rpc("eth_getBalance", [holder, "latest"])).result), 0)
      const old = yield* rpc("eth_getBalance", [holder, "0x1"])
      assert.isUndefined(old.result)
      assert.isDefined(old.error)
    }).pipe(Effect.scoped)
  )

  it.live("a missing binary fails with a message that says what is missing", () =>
    Effect.gen(function* () {
      const error = yield* startAnvil({ binary: "/nonexistent/anvil" }).pipe(Effect.scoped, Effect.flip)
      assert.strictEqual(error._tag, "EmbeddedStartError")
      assert.include(error.message, "binary not found at /nonexistent/anvil")
    })
  )

  it.live("a process that dies before it is ready fails the start", () =>
    Effect.gen(function* () {
      const error = yield* startJongodb({ binary: "/bin/false" }).pipe(Effect.scoped, Effect.flip)
      assert.strictEqual(error.reason, "exited")
      assert.include(error.message, "stopped before it was ready")
    })
  )

  it.live("a service that exits at once (its port taken meanwhile) is started again", () =>
    Effect.gen(function* () {
      // A stand-in binary that fails its first start and serves on its second, as when a port race is lost once.
      const dir = mkdtempSync(join(tmpdir(), "svc-embedded-"))
      const binary = join(dir, "flaky")
      writeFileSync(
        binary,
        `#!/bin/sh\nif [ ! -e "${dir}/tried" ]; then touch "${dir}/tried"; exit 1; fi\necho "JONGODB_URI=mongodb://127.0.0.1:1/x"\nexec sleep 30\n`
      )
      chmodSync(binary, 0o755)
      const started = yield* startJongodb({ binary }).pipe(Effect.scoped)
      assert.strictEqual(started.uri, "mongodb://127.0.0.1:1/x")
      rmSync(dir, { recursive: true, force: true })
    })
  )

  it("the test run shares one jongodb and one anvil", async () => {
    assert.match(inject("mongoUri"), /^mongodb:\/\/127\.0\.0\.1:\d+\//)
    const client = createPublicClient({ transport: http(inject("rpcUrl")) })
    assert.strictEqual(await client.getChainId(), 42161)
  })
})
