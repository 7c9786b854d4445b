/**
 * `kill -9` between a payment's record and its invoice's (issue 38): a process pays an invoice and is killed inside the
 * unit of work that records the payment, after the payment's record is written and before the invoice is marked paid
 * (`test/PayThenDie.ts`). On SQLite and on MongoDB, the store then holds neither: the payment is not complete and the
 * invoice is not paid. Finishing the request the dead process left records both, with the transaction it paid in.
 */
import { spawn } from "node:child_process"
import { randomUUID } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assert, layer } from "@effect/vitest"
import { startJongodb } from "@svc/adapters/embedded"
import { EmbeddedChain } from "@svc/adapters/evm"
import { MongoStorage } from "@svc/adapters/mongo"
import { SqliteStorage } from "@svc/adapters/sqlite"
import { Clock, Effect, Layer, Redacted } from "effect"
import { generatePrivateKey } from "viem/accounts"
import { inject } from "vitest"
import { IdGenerator, type InvoiceId } from "../Ids.ts"
import { TeamAccess } from "../membership/TeamAccess.ts"
import { finishAbandoned } from "../payment/PaymentExecution.ts"
import { PaymentLedger } from "../payment/PaymentLedger.ts"
import { paymentStateFilter } from "../payment/PaymentMachine.ts"
import { Randomness } from "../Randomness.ts"
import { SignatureVerifier } from "../signature/SignatureVerifier.ts"
import { InvoiceRepository } from "./InvoiceRepository.ts"

declare module "vitest" {
  export interface ProvidedContext {
    readonly mongoUri: string
    readonly rpcUrl: string
  }
}

const relayerKeys = [generatePrivateKey(), generatePrivateKey()]
const chain = EmbeddedChain.layer({
  rpcUrl: inject("rpcUrl"),
  chainId: 42161,
  relayerKeys: relayerKeys.map((key) => Redacted.make(key))
}).pipe(Layer.orDie)

const script = new URL("../../test/PayThenDie.ts", import.meta.url).pathname

/** Runs `PayThenDie` on `storage` and this file's suite; answers the ids it printed and the signal that ended it. */
const payThenDie = (storage: Record<string, string>) =>
  Effect.flatMap(EmbeddedChain, ({ suite }) =>
    Effect.callback<{ readonly ids: Record<string, string>; readonly signal: string | null; readonly output: string }>(
      (resume) => {
        const child = spawn(process.execPath, [script], {
          env: {
            ...process.env,
            STORAGE: JSON.stringify(storage),
            RPC_URL: inject("rpcUrl"),
            SUITE: JSON.stringify(suite),
            RELAYER_KEYS: JSON.stringify(relayerKeys)
          },
          stdio: ["ignore", "pipe", "pipe"]
        })
        let output = ""
        child.stdout.on("data", (chunk: Buffer) => {
          output += chunk.toString()
        })
        child.stderr.on("data", (chunk: Buffer) => {
          output += chunk.toString()
        })
        child.on("exit", (_code, signal) => {
          const line = output.split("\n").find((l) => l.startsWith('{"team"'))
          resume(Effect.succeed({ ids: line === undefined ? {} : JSON.parse(line), signal, output }))
        })
      }
    )
  )

/** The clock five minutes on: the dead process's claim has lapsed. */
const later = Clock.clockWith((clock) =>
  Effect.succeed<Clock.Clock>({
    currentTimeMillisUnsafe: () => clock.currentTimeMillisUnsafe() + 300_000,
    currentTimeMillis: Effect.map(clock.currentTimeMillis, (now) => now + 300_000),
    currentTimeNanosUnsafe: () => clock.currentTimeNanosUnsafe() + 300_000_000_000n,
    currentTimeNanos: Effect.map(clock.currentTimeNanos, (now) => now + 300_000_000_000n),
    monotonicTimeNanosUnsafe: () => clock.monotonicTimeNanosUnsafe(),
    monotonicTimeNanos: clock.monotonicTimeNanos,
    sleep: (duration) => clock.sleep(duration)
  })
)

const storages = {
  SQLite: () => {
    const dir = mkdtempSync(join(tmpdir(), "svc-kill-"))
    const filename = join(dir, "svc.db")
    return {
      child: { sqlite: filename },
      layer: Layer.orDie(SqliteStorage.layer({ filename })),
      cleanup: () => rmSync(dir, { recursive: true, force: true })
    }
  },
  MongoDB: (uri: string) => {
    const database = `kill_${randomUUID().replaceAll("-", "")}`
    return {
      child: { mongo: uri, database },
      layer: Layer.orDie(MongoStorage.layer({ uri, database })),
      cleanup: () => undefined
    }
  }
}

/**
 * The MongoDB server of the MongoDB case: on jongodb, one of its own. jongodb's stand-in for transactions
 * (`MongoTransaction.ts`) is a server-wide lock, which the killed process keeps until it lapses (30 s): on the run's
 * shared jongodb every other test would wait for it. A real replica set (`MONGODB_URI`) aborts a dead client's
 * transaction by itself.
 */
const mongoUri =
  process.env.MONGODB_URI === undefined ? Effect.map(startJongodb(), (j) => j.uri) : Effect.succeed(inject("mongoUri"))

layer(chain, { timeout: 120_000, excludeTestServices: true })("kill -9 between a payment and its invoice", (it) => {
  const scenario = (store: {
    readonly child: Record<string, string>
    readonly layer: ReturnType<(typeof storages)["SQLite"]>["layer"]
    readonly cleanup: () => void
  }) =>
    Effect.gen(function* () {
      const { ids, signal, output } = yield* payThenDie(store.child)
      assert.strictEqual(signal, "SIGKILL", output)
      const team = ids.team ?? ""
      const invoiceId = (ids.invoice ?? "") as InvoiceId
      const ledger = yield* PaymentLedger
      const invoices = yield* InvoiceRepository
      // Neither: the invoice is not paid, and its payment is not recorded complete (at most noted in flight).
      const invoice = yield* invoices.findById(invoiceId)
      assert.deepStrictEqual([invoice.state, invoice.paid_cents, invoice.payments], ["submitted", 0, []])
      const before = yield* ledger.list({ payer: team as never, states: paymentStateFilter.all })
      assert.notInclude(
        before.map((p) => p.state),
        "complete"
      )
      // Both, once the request the dead process left is finished from what the chain holds.
      const abandoned = yield* ledger.abandoned(Date.now() + 300_000, 100)
      const request = abandoned.find((r) => r.salt === ids.salt)
      assert.isDefined(request, output)
      const clock = yield* later
      if (request !== undefined) {
        assert.strictEqual(yield* finishAbandoned(request).pipe(Effect.provideService(Clock.Clock, clock)), "recorded")
      }
      const [payment] = yield* ledger.list({ payer: team as never, states: paymentStateFilter.all })
      const paid = yield* invoices.findById(invoiceId)
      assert.deepStrictEqual([payment?.state, paid.state, paid.paid_cents], ["complete", "paid", 4_200])
      assert.strictEqual(paid.payments[0]?.transaction, payment?.process_transaction)
    }).pipe(
      Effect.provide(
        Layer.mergeAll(TeamAccess.layer, SignatureVerifier.layer).pipe(
          Layer.provideMerge(Layer.mergeAll(store.layer, IdGenerator.layer, Randomness.layer))
        )
      ),
      Effect.ensuring(Effect.sync(store.cleanup))
    )

  it.effect("SQLite: neither is written; finishing the dead process's request writes both", () =>
    scenario(storages.SQLite())
  )

  it.effect("MongoDB: neither is written; finishing the dead process's request writes both", () =>
    Effect.flatMap(mongoUri, (uri) => scenario(storages.MongoDB(uri))).pipe(Effect.scoped)
  )
})
