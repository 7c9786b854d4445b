/**
 * Pay schedules across real processes (issue 37, decision 0112), as an operator runs them: `npm start` processes on
 * one store (SQLite, and MongoDB: a jongodb of its own), a separately started anvil mining a block a second with the suite placed by `npm run deploy`. The
 * process paying an instalment is killed (`kill -9`) while its transaction is in the node's pool; two processes are
 * started in its place on the same store and chain, and both run the instalment runner: the instalment is paid once.
 */
import { assert, describe, it } from "@effect/vitest"
import { eventually } from "@svc/adapters/test/Eventually"
import { testUsdcAbi } from "@svc/contracts"
import { signableOf, type TypedDataBundle } from "@svc/domain/eip712"
import { Effect } from "effect"
import { type Address, parseAbi } from "viem"
import {
  deployedChain,
  employeesOf,
  fundedTeam,
  type Json,
  request,
  sharedStore,
  signIn,
  startApi
} from "../test/SettlementKit.ts"

const instalmentPaid = parseAbi([
  "event InstalmentPaid(bytes32 indexed id, uint256 indexed n, address indexed recipient, address token, uint256 amount)"
])

/** Short leases, so a dead holder's schedule is taken over within seconds (`CLAIM_LEASE_MS` is the runner's too). */
const leases = { CLAIM_LEASE_MS: "2000", RELAYER_SEND_LEASE_MS: "2000", SETTLEMENT_WAIT_MS: "15000" }

// Each store's case has its own processes, chain and store, and mostly waits on blocks: side by side (decision 0116).
describe("pay schedules across processes", { concurrent: true }, () => {
  for (const storage of ["sqlite", "mongo"] as const)
    it.live(
      `${storage}: kill -9 of the process paying an instalment, then two processes on its store: the instalment is paid once`,
      () =>
        Effect.gen(function* () {
          const chain = yield* deployedChain
          const store = yield* sharedStore(storage)
          const env = { ...store.env, ...chain.env, ...leases }
          const first = yield* startApi(env)
          const token = yield* signIn(first.base, store.admin)
          const { team, account } = yield* fundedTeam(chain, first.base, token, store.companyId, store.admin, "Payroll")
          const [payee] = yield* employeesOf(store, [team])

          // One instalment, due a few seconds after signing.
          const due = Math.floor(Date.now() / 1000) + 8
          const issued = yield* request(first.base, "POST", "/v2/pay_schedules", token, {
            team_nanoid: team,
            to: [{ to: payee, amount_cents: 1234, invoice_description: "Salary" }],
            interval: "weekly",
            first_pay_at: new Date(due * 1000).toISOString(),
            count: 1
          })
          assert.strictEqual(issued.status, 200, JSON.stringify(issued))
          const { pay_schedule_nanoid: nanoid, ...bundle } = issued.data
          const signature = yield* Effect.promise(() =>
            store.admin.signTypedData(signableOf(bundle as TypedDataBundle) as never)
          )
          const registered = yield* request(first.base, "PUT", "/v2/pay_schedules", token, {
            team_nanoid: team,
            signer: store.admin.address,
            typed_data: bundle.typed_data,
            signature
          })
          assert.strictEqual(registered.status, 200, JSON.stringify(registered))

          // The instalment's transaction in the node's pool (sent, not mined): the paying process dies there.
          yield* eventually(
            Effect.map(chain.rpc("txpool_content", []), (pool: Json) =>
              Object.values(pool.result?.pending ?? {}).some((byNonce) =>
                Object.values(byNonce as object).some((tx: Json) => tx.input.startsWith("0x"))
              )
            ),
            { what: "the instalment's transaction in the pool", every: "20 millis", timeout: "60 seconds" }
          )
          process.kill(-(first.child.pid as number), "SIGKILL")
          const [second, third] = yield* Effect.all([startApi(env), startApi(env)], { concurrency: 2 })

          // Both runners find it; it is recorded paid once, from the chain.
          const read = (base: string) =>
            Effect.flatMap(signIn(base, store.admin), (again) =>
              request(base, "GET", `/v2/pay_schedules/${nanoid}`, again)
            )
          const done = yield* eventually(
            Effect.map(read(second?.base as string), (answer) => answer.data?.state === "completed" && answer.data),
            { what: "the schedule completed", every: "200 millis", timeout: "90 seconds" }
          )
          assert.deepStrictEqual([done.paid_count, done.remaining_count], [1, 0])
          const seen = yield* read(third?.base as string)
          assert.strictEqual(seen.data.paid_count, 1)
          const logs = yield* Effect.promise(() =>
            chain.client.getLogs({ address: account, event: instalmentPaid[0], fromBlock: 0n, toBlock: "latest" })
          )
          assert.strictEqual(logs.length, 1)
          assert.strictEqual(logs[0]?.args.amount, 1234n * 10n ** 4n)
          const balance = yield* Effect.promise(() =>
            chain.client.readContract({
              address: chain.env.TOKEN_ADDRESS as Address,
              abi: testUsdcAbi,
              functionName: "balanceOf",
              args: [logs[0]?.args.recipient as Address]
            })
          )
          assert.strictEqual(balance, 1234n * 10n ** 4n)
          const payments = yield* request(second?.base as string, "GET", `/v2/payments?team_nanoid=${team}`, token)
          const ofSchedule = payments.data.items.filter((item: Json) => item.payment.pay_schedule_nanoid === nanoid)
          assert.strictEqual(ofSchedule.length, 1, JSON.stringify(payments))
        }),
      240_000
    )
})
