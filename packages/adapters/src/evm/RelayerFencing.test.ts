/**
 * The relayer's nonce and lease logic without anvil (issue 36; decisions 0090, 0095): two processes share a key over
 * one journal, on each store, before a node in memory (`FakeNode`), under `TestClock`. A sender paused past its send
 * lease (after it read the node's nonce, or after it chose its nonce and before it signs) while the other process
 * takes the key wakes and does not sign that nonce: no nonce carries two different transactions, and no journaled
 * version moves back.
 */
import { randomUUID } from "node:crypto"
import { assert, describe, it } from "@effect/vitest"
import { type JournaledTransaction, TransactionJournal } from "@svc/domain/chain"
import { Effect, type Fiber, Layer } from "effect"
import { TestClock } from "effect/testing"
import type { Hex } from "viem"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import { inject } from "vitest"
import { eventually } from "../../test/Eventually.ts"
import { type FakeNode, type Hold, makeFakeNode } from "../../test/FakeNode.ts"
import * as MongoStorage from "../mongo/MongoStorage.ts"
import * as SqliteStorage from "../sqlite/SqliteStorage.ts"
import { makeRelayer } from "./Relayer.ts"

const stores = [
  { name: "SQLite", layer: () => Layer.orDie(SqliteStorage.layer({ filename: ":memory:" })) },
  {
    name: "MongoDB",
    layer: () =>
      Layer.orDie(MongoStorage.layer({ uri: inject("mongoUri"), database: `fencing_${randomUUID().slice(0, 8)}` }))
  }
] as const

/** A transaction to send: its calldata names it. */
const transaction = (n: number) => ({
  to: `0x${"5".repeat(40)}` as const,
  data: `0x${n.toString(16).padStart(8, "0")}` as Hex,
  gas: 50_000n,
  carries: [`test:${n}`]
})

/** The order a version's status only ever moves forward in, here (no reorganisation, no replacement). */
const rank: Record<JournaledTransaction["status"], number> = {
  signed: 0,
  sent: 1,
  included: 2,
  confirmed: 3,
  replaced: 4,
  failed: 4
}

/** A pause the test releases: calls that meet it wait, once answered, until `release()`. */
const makePause = () => {
  const waiting: Array<() => void> = []
  let held = false
  return {
    arm: () => {
      held = true
    },
    waiting: () => waiting.length,
    release: () => {
      held = false
      for (const resume of waiting.splice(0)) resume()
    },
    /** `effect`, then the pause while it is held. */
    after: <A, E>(effect: Effect.Effect<A, E>) =>
      Effect.tap(effect, () =>
        held ? Effect.promise(() => new Promise<void>((resume) => waiting.push(resume))) : Effect.void
      )
  }
}

/** Where the sender is paused: what it read before, and the pause. */
const pausePoints = [
  {
    name: "after it read the node's nonce",
    pause: (client: ReturnType<FakeNode["clientOf"]>, journal: TransactionJournal["Service"]) => ({
      journal,
      arm: () => client.hold("eth_getTransactionCount")
    })
  },
  {
    name: "after it chose its nonce, before it signs",
    pause: (_client: ReturnType<FakeNode["clientOf"]>, journal: TransactionJournal["Service"]) => {
      const pause = makePause()
      return {
        journal: { ...journal, nextNonce: (...args) => pause.after(journal.nextNonce(...args)) },
        arm: () => {
          pause.arm()
          return pause
        }
      }
    }
  }
] satisfies ReadonlyArray<{
  readonly name: string
  readonly pause: (
    client: ReturnType<FakeNode["clientOf"]>,
    journal: TransactionJournal["Service"]
  ) => { journal: TransactionJournal["Service"]; arm: () => Hold }
}>

/** Moves the test's clock in small steps until `fiber` has answered; its answer. */
const answerOf = <A, E>(fiber: Fiber.Fiber<A, E>, what: string) =>
  Effect.flatMap(
    eventually(
      Effect.map(TestClock.adjust("20 millis"), () => fiber.pollUnsafe()),
      { what, timeout: "20 seconds" }
    ),
    (exit): Effect.Effect<A, E> => exit
  )

describe("the relayer's send lease, fenced", () => {
  for (const [store, point] of stores.flatMap((store) => pausePoints.map((point) => [store, point] as const))) {
    it.effect(`${store.name}: a sender paused ${point.name} past its lease wakes and does not sign`, () =>
      Effect.gen(function* () {
        const journal = yield* TransactionJournal
        const node = makeFakeNode()
        const key = privateKeyToAccount(generatePrivateKey())
        const relayer = key.address.toLowerCase() as `0x${string}`
        const options = { sendLeaseMillis: 10_000, monitorMillis: 1_000 }
        const first = node.clientOf()
        const second = node.clientOf()
        const pausing = point.pause(first, journal)
        const a = yield* makeRelayer(first.client, key, { ...options, journal: pausing.journal })
        const b = yield* makeRelayer(second.client, key, { ...options, journal })
        const history = new Map<Hex, Array<JournaledTransaction["status"]>>()
        const look = Effect.gen(function* () {
          for (const nonce of [0, 1]) {
            for (const version of yield* journal.versions(42161, relayer, nonce)) {
              history.set(version.hash, [...(history.get(version.hash) ?? []), version.status])
            }
          }
        })

        // A takes the key's send lease, reads the next nonce (0), and is paused there.
        const paused = pausing.arm()
        const sendA = yield* Effect.forkChild(a.send(transaction(1)))
        yield* eventually(() => paused.waiting() > 0, { what: "A paused after reading its nonce" })
        // Its lease lapses; B takes the key under a larger token and sends on nonce 0.
        yield* TestClock.adjust("11 seconds")
        const sentB = yield* b.send(transaction(2))
        yield* look
        // A wakes: the journal says the lease is no longer its own, so it signs nothing on nonce 0; it takes the key
        // again and sends on the next nonce.
        paused.release()
        const sentA = yield* answerOf(sendA, "A's send")
        yield* look
        assert.notStrictEqual(sentA, sentB)

        const taken = node.taken()
        assert.deepStrictEqual(
          taken.map((tx) => [tx.nonce, tx.hash]),
          [
            [0, sentB],
            [1, sentA]
          ]
        )
        for (const nonce of [0, 1]) {
          assert.lengthOf(yield* journal.versions(42161, relayer, nonce), 1, `versions of nonce ${nonce}`)
        }

        // Mined; whichever process follows the key records both, forward only.
        node.mine()
        yield* eventually(
          Effect.andThen(TestClock.adjust("200 millis"), () =>
            Effect.map(journal.unfinished(42161, relayer), (open) => open.length === 0)
          ),
          { what: "both versions confirmed", timeout: "20 seconds" }
        )
        yield* look
        for (const [hash, statuses] of history) {
          const ranks = statuses.map((status) => rank[status])
          assert.deepStrictEqual(ranks, [...ranks].sort(), `${hash} moved ${statuses.join(" -> ")}`)
          assert.strictEqual(statuses.at(-1), "confirmed")
        }
      }).pipe(Effect.scoped, Effect.provide(store.layer()))
    )
  }
})
