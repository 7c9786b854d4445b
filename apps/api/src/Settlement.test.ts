/**
 * Settlement across processes (issue 24, DESIGN §6), as an operator runs it: `npm start` processes on one store, a
 * separately started anvil that mines a block a second with the contracts placed by `npm run deploy`, and two relayer
 * keys (`RELAYER_PRIVATE_KEYS`) shared by every process.
 * - Three processes on SQLite (one database, the chain given by `RPC_URL`) and three on MongoDB (jongodb): 300 PUTs at
 *   once, with replays of the same signed requests sent to other processes: no nonce signed twice, no request
 *   executed twice, no payment lost.
 * - Production-shaped: two processes on MongoDB with nothing embedded: sign-in, team creation, a payment, a member
 *   removal (a revocation sent by whichever key) and a webhook delivered over HTTPS.
 */
import { execFileSync } from "node:child_process"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { keyOfAffinity } from "@svc/adapters/evm"
import { eventually } from "@svc/adapters/test/Eventually"
import { svcAccountForwarderAbi, testUsdcAbi } from "@svc/contracts"
import { TransactionJournal } from "@svc/domain/chain"
import { signableOf, type TypedDataBundle } from "@svc/domain/eip712"
import { Context, Effect, Layer } from "effect"
import { Webhook } from "standardwebhooks"
import { type Address, type Hex, keccak256, parseAbi, toHex } from "viem"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import { tempDir } from "../test/NpmStart.ts"
import {
  chainId,
  childrenOf,
  deployedChain,
  employeesOf,
  fundedTeam,
  type Json,
  put,
  request,
  sharedStore,
  signedPayment,
  signIn,
  startApi,
  untilPaid
} from "../test/SettlementKit.ts"
import { startReceiver } from "../test/WebhookReceiver.ts"
import * as Server from "./Server.ts"

/**
 * How many PUTs a run sends: 300 on either store (`SETTLEMENT_COUNT` changes it). On jongodb, transactions waiting in a
 * process commit together and the journal's writes do not wait for commits (decision 0062), which is what lets 300 hold
 * there (bench/RESULTS.md, "Settlement across processes").
 */
const count = Number(process.env.SETTLEMENT_COUNT ?? 300)

// Each test has a chain, a store and processes of its own, and mostly waits on 1-second blocks: they run side by side.
describe("settlement across processes, on a chain of its own at 1-second blocks", { concurrent: true }, () => {
  for (const storage of ["sqlite", "mongo"] as const) {
    it.live(
      `three API processes on ${storage} sharing two relayer keys: ${count} PUTs at once with replays, each paid once, none lost`,
      () =>
        Effect.gen(function* () {
          const chain = yield* deployedChain
          const store = yield* sharedStore(storage)
          // One first (it migrates the store), then two more on the same store, chain and keys.
          const first = yield* startApi({ ...store.env, ...chain.env })
          const others = yield* Effect.all(
            [startApi({ ...store.env, ...chain.env }), startApi({ ...store.env, ...chain.env })],
            {
              concurrency: 2
            }
          )
          const processes = [first, ...others]
          const token = yield* signIn(first.base, store.admin)
          // Teams until each key carries at least two (a team's transactions keep to one key).
          const teams: Array<{ team: string; account: Address }> = []
          const perKey = new Map<string, number>()
          while (chain.relayers.some((relayer) => (perKey.get(relayer) ?? 0) < 2) && teams.length < 16) {
            const base = processes[teams.length % 3]?.base as string
            const team = yield* fundedTeam(chain, base, token, store.companyId, store.admin, `Team ${teams.length}`)
            const key = keyOfAffinity(team.account, chain.relayers)
            perKey.set(key, (perKey.get(key) ?? 0) + 1)
            teams.push(team)
          }
          const payees = yield* employeesOf(
            store,
            teams.map(({ team }) => team)
          )
          const before = yield* Effect.forEach(teams, ({ account }) =>
            Effect.promise(() =>
              chain.client.readContract({
                address: chain.env.TOKEN_ADDRESS as Address,
                abi: testUsdcAbi,
                functionName: "balanceOf",
                args: [account]
              })
            )
          )

          // The signed requests, issued round the processes.
          const bodies = yield* Effect.forEach(
            Array.from({ length: count }, (_, i) => i),
            (i) =>
              signedPayment(
                processes[i % 3]?.base as string,
                token,
                store.admin,
                teams[i % teams.length]?.team as string,
                payees[i % teams.length] as string,
                100 + i
              ),
            { concurrency: 8 }
          )
          // All at once, each to one process; every fifth also to another process at the same time (a client's retry).
          const sends = bodies.flatMap((body, i) => [
            { i, base: processes[i % 3]?.base as string, body },
            ...(i % 5 === 0 ? [{ i, base: processes[(i + 1) % 3]?.base as string, body }] : [])
          ])
          const storm = Date.now()
          const answers = yield* Effect.forEach(sends, (send) => put(send.base, token, send.body), {
            concurrency: "unbounded"
          })
          const stormMillis = Date.now() - storm
          const took = answers.map((answer) => answer.millis).sort((a, b) => a - b)
          const withStatus = (status: number) => answers.filter((answer) => answer.status === status).length
          const figures = `${storage}: ${sends.length} PUTs (${sends.length - bodies.length} replays) in ${stormMillis} ms; p50 ${took[Math.floor(took.length / 2)]} ms, max ${took.at(-1)} ms; ${withStatus(200)} x 200, ${withStatus(202)} x 202, ${withStatus(409)} x 409, ${answers.filter((answer) => answer.status >= 500).length} x 5xx`
          console.info(figures)
          if (process.env.SETTLEMENT_DEBUG) for (const p of processes) console.info(p.output().slice(-6000))
          // Each answered 200, 202 (sent, not final within the wait: decision 0061), or (a replay that met the request
          // still executing, nothing sent yet) 409 EXECUTION_IN_PROGRESS, never ALREADY_EXECUTED (none was executed by
          // other payments) nor a 5xx, on either store. Then the same PUT again answers the one result.
          for (const answer of answers) {
            assert.isTrue(
              answer.status === 200 ||
                answer.status === 202 ||
                (answer.status === 409 && answer.body.error_code === "EXECUTION_IN_PROGRESS"),
              JSON.stringify(answer.body)
            )
          }
          const settle = (body: unknown, i: number) => untilPaid(processes[(i + 2) % 3]?.base as string, token, body)
          const settled = yield* Effect.forEach(bodies, settle, { concurrency: 16 })
          const transactions = settled.map((answer) => {
            assert.strictEqual(answer.status, 200, JSON.stringify(answer.body))
            return answer.body.data.transaction as Hex
          })
          for (const [k, send] of sends.entries()) {
            const answer = answers[k]
            if (answer?.status === 200) assert.strictEqual(answer.body.data.transaction, transactions[send.i])
          }

          // Executed once each: 300 requests on chain, with 300 distinct salts.
          const executed = yield* Effect.promise(() =>
            chain.client.getContractEvents({
              address: chain.env.FORWARDER_ADDRESS as Address,
              abi: svcAccountForwarderAbi,
              eventName: "RequestExecuted",
              fromBlock: 0n,
              strict: true
            })
          )
          const kinds = executed.filter((log) => log.args.kind !== 3)
          assert.strictEqual(kinds.length, bodies.length)
          assert.strictEqual(new Set(kinds.map((log) => log.args.salt)).size, bodies.length)
          // Requests waiting together shared transactions (decision 0065).
          assert.isBelow(new Set(kinds.map((log) => log.transactionHash)).size, bodies.length)
          // None lost: each team's balance went down by exactly what it paid, and every payment is listed.
          for (const [t, { team, account }] of teams.entries()) {
            const paid = bodies
              .map((_, i) => i)
              .filter((i) => i % teams.length === t)
              .reduce((sum, i) => sum + BigInt(100 + i) * 10n ** 4n, 0n)
            const after = yield* Effect.promise(() =>
              chain.client.readContract({
                address: chain.env.TOKEN_ADDRESS as Address,
                abi: testUsdcAbi,
                functionName: "balanceOf",
                args: [account]
              })
            )
            assert.strictEqual(before[t] as bigint, after + paid, team)
            const listed = yield* request(first.base, "GET", `/v2/payments?team_nanoid=${team}&limit=1000`, token)
            assert.strictEqual(listed.data.items.length, bodies.filter((_, i) => i % teams.length === t).length)
          }
          // No nonce signed twice: in the journal every version of every nonce of both keys is mined, none failed or
          // replaced, and each key's mined nonces run on from 0 to the chain's count of its transactions.
          const journal = yield* Effect.map(Layer.build(Server.storage(store.options)), (context) =>
            Context.get(context, TransactionJournal)
          )
          const used = new Map<string, number>()
          for (const relayer of chain.relayers) {
            const count = yield* Effect.promise(() => chain.client.getTransactionCount({ address: relayer }))
            used.set(relayer, count)
            const versions = yield* Effect.forEach(
              Array.from({ length: count + 1 }, (_, n) => n),
              (nonce) => journal.versions(chainId, relayer, nonce)
            )
            const statuses = versions.map((of) => of.map((version) => version.status))
            // The operators' setup was sent by the deploying account: every one of a relayer key's nonces is ours.
            // One version confirmed per nonce; any other is a replacement of it (the same call, fees raised while it
            // waited), never a failed send nor another call: two senders signing one nonce would leave either.
            const odd = versions.flatMap((of, nonce) =>
              nonce < count &&
              (of.filter((version) => version.status === "confirmed").length !== 1 ||
                of.some((version) => version.status !== "confirmed" && version.status !== "replaced") ||
                of.some((version) => version.data !== of[0]?.data || version.to !== of[0]?.to))
                ? [`${nonce}: ${of.map((version) => version.status).join(",")}`]
                : []
            )
            assert.deepStrictEqual(odd, [], relayer)
            assert.deepStrictEqual(statuses[count], [], relayer)
          }
          assert.isTrue(
            [...used.values()].every((count) => count > 0),
            "both keys sent"
          )
        }).pipe(Effect.scoped),
      Math.max(300_000, count * 2_000)
    )
  }

  it.live(
    "production-shaped: two processes on MongoDB, nothing embedded: sign-in, a team, a payment, a removal and a webhook",
    () =>
      Effect.gen(function* () {
        const chain = yield* deployedChain
        const store = yield* sharedStore("mongo")
        // An HTTPS receiver (production takes https webhook URLs only), its certificate trusted by the processes.
        const dir = yield* tempDir
        execFileSync(
          "openssl",
          [
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            join(dir, "key.pem"),
            "-out",
            join(dir, "cert.pem"),
            "-days",
            "1",
            "-subj",
            "/CN=127.0.0.1",
            "-addext",
            "subjectAltName=IP:127.0.0.1"
          ],
          { stdio: "ignore" }
        )
        const receiver = yield* startReceiver(undefined, {
          key: readFileSync(join(dir, "key.pem"), "utf8"),
          cert: readFileSync(join(dir, "cert.pem"), "utf8")
        })
        const env = {
          ...store.env,
          ...chain.env,
          WEBHOOK_ALLOW_PRIVATE_URLS: "true",
          NODE_EXTRA_CA_CERTS: join(dir, "cert.pem")
        }
        const [a, b] = yield* Effect.all([startApi(env), startApi(env)], { concurrency: 2 })
        for (const started of [a, b]) {
          // Nothing embedded: no SQLite, no anvil of its own, no child process at all.
          assert.notMatch(started.output(), /embedded SQLite|anvil at/)
          assert.deepStrictEqual(childrenOf(started.child.pid ?? 0), [])
        }

        // Sign-in on one process; the token works on the other.
        const token = yield* signIn(a.base, store.admin)
        const { team, account } = yield* fundedTeam(chain, b.base, token, store.companyId, store.admin, "Payroll")
        const hook = yield* request(a.base, "POST", "/v2/webhooks", token, {
          team_nanoid: team,
          url: receiver.url,
          events: ["payment.sent"],
          name: "production"
        })
        assert.strictEqual(hook.status, 200, JSON.stringify(hook))

        // A finance admin granted on chain (a manager invite executed on the other process); an employee paid.
        const finance = privateKeyToAccount(generatePrivateKey())
        const invite = yield* request(a.base, "POST", "/v2/invites/manager", token, {
          nanoid: team,
          invites: [{ email: "fin@example.com", role: "team_finance_admin", wallet: finance.address }]
        })
        assert.strictEqual(invite.status, 200, JSON.stringify(invite))
        const bundle = invite.data as TypedDataBundle & { invites: Array<string> }
        const granted = yield* request(b.base, "PUT", "/v2/invites/manager", token, {
          invites: bundle.invites,
          signer: store.admin.address,
          typed_data: bundle.typed_data,
          signature: yield* Effect.promise(() => store.admin.signTypedData(signableOf(bundle) as never))
        })
        assert.strictEqual(granted.status, 200, JSON.stringify(granted))
        const hasRole = () =>
          Effect.promise(() =>
            chain.client.readContract({
              address: account,
              abi: parseAbi(["function hasRole(bytes32,address) view returns (bool)"]),
              functionName: "hasRole",
              args: [keccak256(toHex("team_finance_admin")), finance.address]
            })
          )
        assert.isTrue(yield* hasRole())
        const users = yield* request(a.base, "GET", `/v2/teams/${team}/users`, token)
        const financeUser = users.data.users.find((u: { email: string }) => u.email === "fin@example.com").nanoid
        const [employee] = yield* employeesOf(store, [team])
        const payment = yield* signedPayment(a.base, token, store.admin, team, employee as string, 4_200)
        const paid = yield* put(b.base, token, payment)
        assert.strictEqual(paid.status, 200, JSON.stringify(paid.body))
        assert.match(paid.body.data.transaction, /^0x[0-9a-f]{64}$/)

        // The payment's webhook, signed as Standard Webhooks says, with the secret given at creation.
        const [delivery] = yield* receiver.waitFor(1)
        const event = new Webhook(hook.data.secret).verify(delivery?.body ?? "", receiver.headersOf(delivery!)) as Json
        assert.strictEqual(event.event_type, "payment.sent")

        // The member removed on one process: its role revoked on chain by whichever relayer key sent it.
        const removed = yield* request(b.base, "DELETE", `/v2/teams/${team}/member/${financeUser}`, token)
        assert.strictEqual(removed.status, 200, JSON.stringify(removed))
        assert.isFalse(yield* hasRole())
      }).pipe(Effect.scoped),
    180_000
  )

  it.live(
    "kill -9 of a sender with transactions in flight, which the node then drops: another process sends them, and the key goes on",
    () =>
      Effect.gen(function* () {
        const chain = yield* deployedChain
        const store = yield* sharedStore("sqlite")
        const env = { ...store.env, ...chain.env, SETTLEMENT_WAIT_MS: "1000" }
        const [victim, survivor] = [yield* startApi(env), yield* startApi(env)]
        const token = yield* signIn(survivor.base, store.admin)
        const { team, account } = yield* fundedTeam(chain, survivor.base, token, store.companyId, store.admin, "Team")
        const payee = (yield* employeesOf(store, [team]))[0] as string
        const bodies = yield* Effect.forEach(
          Array.from({ length: 20 }, (_, i) => i),
          (i) => signedPayment(survivor.base, token, store.admin, team, payee, 100 + i)
        )
        // No more blocks: the victim sends them all, and answers each in flight.
        yield* chain.rpc("evm_setIntervalMining", [0])
        const inFlight = yield* Effect.forEach(bodies, (body) => put(victim.base, token, body), {
          concurrency: "unbounded"
        })
        for (const answer of inFlight) assert.strictEqual(answer.status, 202, JSON.stringify(answer.body))
        // The victim dies holding them; the node forgets them too.
        process.kill(-(victim.child.pid ?? 0), "SIGKILL")
        yield* chain.rpc("anvil_dropAllTransactions", [])
        yield* chain.rpc("evm_setIntervalMining", [1])
        // The survivor follows the key (its monitor lease) and sends the journaled bytes again: every one executes.
        const salts = new Set(bodies.map((body) => BigInt(body.typed_data.salt)))
        const executed = () =>
          Effect.promise(() =>
            chain.client.getContractEvents({
              address: chain.env.FORWARDER_ADDRESS as Address,
              abi: svcAccountForwarderAbi,
              eventName: "RequestExecuted",
              args: { account },
              fromBlock: 0n,
              strict: true
            })
          ).pipe(Effect.map((logs) => logs.filter((log) => salts.has(log.args.salt))))
        const landed = yield* eventually(
          Effect.map(executed(), (logs) => logs.length >= bodies.length && logs),
          { what: "every request executed", every: "250 millis" }
        )
        assert.strictEqual(landed.length, bodies.length)
        assert.strictEqual(new Set(landed.map((log) => log.args.salt)).size, bodies.length)
        // The same hashes the victim answered: the journal's bytes, sent again.
        assert.deepStrictEqual(
          new Set(landed.map((log) => log.transactionHash)),
          new Set(inFlight.map((answer) => answer.body.data.transaction))
        )
        // The key is not stuck: the next payments through the survivor go through (a block a second is slower than
        // its 1 s wait, so each may first answer 202), on the key's next nonces.
        for (const i of [0, 1, 2, 3, 4]) {
          const body = yield* signedPayment(survivor.base, token, store.admin, team, payee, 500 + i)
          const answer = yield* untilPaid(survivor.base, token, body)
          assert.strictEqual(answer.status, 200, JSON.stringify(answer.body))
        }
      }).pipe(Effect.scoped),
    120_000
  )
})
