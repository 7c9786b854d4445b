/**
 * `kill -9` between a payment's record and its invoice's (issue 38): a process pays an invoice and is killed inside the
 * unit of work that records the payment, after the payment's record is written and before the invoice is marked paid
 * (`test/PayThenDie.ts`). On SQLite and on MongoDB, the store then holds neither: the payment is not complete and the
 * invoice is not paid. Recovery, taking over the request the dead process left (docs/settlement.md), records both,
 * with the transaction it paid in.
 */
import { spawn } from "node:child_process"
import { randomUUID } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assert, layer } from "@effect/vitest"
import { JongodbDatabase } from "@svc/adapters/embedded"
import { EmbeddedChain } from "@svc/adapters/evm"
import { MongoStorage } from "@svc/adapters/mongo"
import { SqliteStorage } from "@svc/adapters/sqlite"
import { releaseLockOfKilled } from "@svc/adapters/test/TestMongoDatabase"
import { Effect, Layer, Option, Redacted } from "effect"
import { generatePrivateKey } from "viem/accounts"
import { inject } from "vitest"
import type { Uint256String } from "../Evm.ts"
import { IssuedRequestStore } from "../eip712/IssuedRequestStore.ts"
import { IdGenerator, type InvoiceId } from "../Ids.ts"
import { TeamAccess } from "../membership/TeamAccess.ts"
import { recordsOf } from "../payment/ExecutionRecords.ts"
import { PaymentLedger } from "../payment/PaymentLedger.ts"
import { paymentStateFilter } from "../payment/PaymentMachine.ts"
import { recover } from "../payment/Recovery.ts"
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
  // The run's server (jongodb through its stand-in layer, or `MONGODB_URI`'s replica set), a database of its own.
  MongoDB: () => {
    const connection = { uri: inject("mongoUri"), database: `kill_${randomUUID().replaceAll("-", "")}` }
    return {
      child: { mongo: connection.uri, database: connection.database },
      layer: Layer.orDie(MongoStorage.ports.pipe(Layer.provide(JongodbDatabase.layerDetected(connection)))),
      cleanup: () => undefined
    }
  }
}

layer(chain, { timeout: 120_000, excludeTestServices: true })("kill -9 between a payment and its invoice", (it) => {
  const scenario = (store: {
    readonly child: Record<string, string>
    readonly layer: ReturnType<(typeof storages)["SQLite"]>["layer"]
    readonly cleanup: () => void
  }) =>
    Effect.gen(function* () {
      const { ids, signal, output } = yield* payThenDie(store.child)
      assert.strictEqual(signal, "SIGKILL", output)
      yield* releaseLockOfKilled(Number(ids.pid))
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
      // Both, once recovery takes over the request the dead process left, its lease lapsed, and records it.
      const salt = (ids.salt ?? "") as Uint256String
      const lapsed = Date.now() + 300_000
      const taken = yield* IssuedRequestStore.use((store) => store.takeOver(salt, lapsed, lapsed + 60_000))
      assert.isTrue(Option.isSome(taken), output)
      if (Option.isSome(taken)) yield* recover(taken.value, yield* recordsOf(taken.value))
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

  it.effect("SQLite: neither is written; recovering the dead process's request writes both", () =>
    scenario(storages.SQLite())
  )

  it.effect("MongoDB: neither is written; recovering the dead process's request writes both", () =>
    scenario(storages.MongoDB())
  )
})
