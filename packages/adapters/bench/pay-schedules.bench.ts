/**
 * Gas of pay schedules (contracts version 5, decision 0110) on anvil: registering a signed schedule of 1, 2 and 10
 * payees, and paying one instalment of it, to fresh recipients (instalment 0, a new balance slot each) and to the same
 * recipients a week later (instalment 1, anvil's time moved on); baseline: the same payments as plain ERC-20
 * `transfer`s from an EOA (21,000 base gas each).
 *
 * Run: `node packages/adapters/bench/pay-schedules.bench.ts` (starts its own anvil, so its time travel touches no
 * one; under a minute). Appends a section to the repository's `bench/RESULTS.md`; `BENCH_SMOKE=1` runs the same paths
 * with 1 and 2 payees and writes nothing.
 */
import { randomBytes } from "node:crypto"
import { appendFileSync } from "node:fs"
import { cpus, totalmem } from "node:os"
import { testUsdcAbi } from "@svc/contracts"
import { scheduleRequestOf } from "@svc/domain/chain"
import { type ScheduleEntry, scheduleTypedData, signableOf } from "@svc/domain/eip712"
import { Effect } from "effect"
import { type Address, createTestClient, encodeFunctionData, type Hex, http, toHex } from "viem"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import { startAnvil } from "../src/embedded/index.ts"
import { accountAddresses, createAccount } from "../src/evm/actions/accounts.ts"
import { makeGateway } from "../src/evm/actions/Gateway.ts"
import { executeInstalment, executeSchedule } from "../src/evm/actions/schedules.ts"
import { deploySuite, makeChainClient, makeRelayer, mintTestUsdc } from "../src/evm/index.ts"

const smoke = process.env.BENCH_SMOKE === "1"
const payeeCounts = smoke ? [1, 2] : [1, 2, 10]
const week = 7 * 86_400

const bytes32 = (): Hex => toHex(randomBytes(32))
const freshWallet = () => privateKeyToAccount(generatePrivateKey()).address

const program = Effect.gen(function* () {
  const anvil = yield* startAnvil()
  const client = makeChainClient({ rpcUrl: anvil.rpcUrl, chainId: anvil.chainId, pollingInterval: 10 })
  const node = createTestClient({ mode: "anvil", transport: http(anvil.rpcUrl) })
  const relayerAccount = privateKeyToAccount(generatePrivateKey())
  yield* Effect.promise(() => node.setBalance({ address: relayerAccount.address, value: 10n ** 24n }))
  const relayer = yield* makeRelayer(client, relayerAccount)
  const suite = yield* deploySuite(client, relayer)
  // One request at a time, each its own transaction: the gas is the instalment's alone.
  const gateway = yield* makeGateway(client, relayer, suite, { maxRequests: 1 })
  const location = { chainId: anvil.chainId, verifyingContract: suite.forwarder }
  const owner = privateKeyToAccount(generatePrivateKey())
  const accountSalt = bytes32()
  const address = yield* accountAddresses(gateway)(owner.address, accountSalt)
  const { account: team } = yield* createAccount(gateway, address, owner.address, accountSalt)
  yield* mintTestUsdc(client, relayer, suite.token, team, 10n ** 15n)
  const chainNow = Effect.map(
    Effect.promise(() => client.getBlock()),
    (block) => Number(block.timestamp)
  )
  const travel = (seconds: number) =>
    Effect.promise(async () => {
      await node.increaseTime({ seconds })
      await node.mine({ blocks: 1 })
    })

  // Baseline: an EOA holding the tokens pays `recipients` with plain `transfer`s, one transaction each.
  const holder = privateKeyToAccount(generatePrivateKey())
  yield* Effect.promise(() => node.setBalance({ address: holder.address, value: 10n ** 22n }))
  yield* mintTestUsdc(client, relayer, suite.token, holder.address, 10n ** 12n)
  const holderRelayer = yield* makeRelayer(client, holder)
  const plainTransfers = (recipients: ReadonlyArray<Address>) =>
    Effect.forEach(recipients, (to) =>
      Effect.gen(function* () {
        const data = encodeFunctionData({ abi: testUsdcAbi, functionName: "transfer", args: [to, 1_000_000n] })
        const hash = yield* holderRelayer.send({ to: suite.token, data, gas: 100_000n })
        return (yield* Effect.promise(() => client.waitForTransactionReceipt({ hash, checkReplacement: false })))
          .gasUsed
      })
    ).pipe(Effect.map((gas) => gas.reduce((sum, one) => sum + one, 0n)))

  const rows: Array<{
    payees: number
    register: bigint
    fresh: bigint
    returning: bigint
    plainFresh: bigint
    plainReturning: bigint
  }> = []
  for (const payees of payeeCounts) {
    const recipients = Array.from({ length: payees }, freshWallet)
    const schedule: ScheduleEntry = {
      id: bytes32(),
      token: suite.token,
      firstPayAt: String((yield* chainNow) + 30),
      interval: "weekly",
      count: "3",
      validMinutes: "1440",
      payees: recipients.map((recipient) => ({ recipient, amount: "1000000" })) as never
    }
    const bundle = scheduleTypedData(
      location,
      { from: owner.address, to: team, salt: BigInt(bytes32()).toString(10), expires: String((yield* chainNow) + 600) },
      schedule
    )
    const signature = yield* Effect.promise(() => owner.signTypedData(signableOf(bundle)))
    const registered = yield* executeSchedule(gateway, { request: scheduleRequestOf(bundle.typed_data), signature })
    yield* travel(31)
    const fresh = yield* executeInstalment(gateway, team, schedule.id as Hex, 0)
    yield* travel(week)
    const returning = yield* executeInstalment(gateway, team, schedule.id as Hex, 1)
    const plainRecipients = Array.from({ length: payees }, freshWallet)
    const plainFresh = yield* plainTransfers(plainRecipients)
    const plainReturning = yield* plainTransfers(plainRecipients)
    rows.push({
      payees,
      register: registered.gasUsed,
      fresh: fresh.gasUsed,
      returning: returning.gasUsed,
      plainFresh,
      plainReturning
    })
  }
  return rows
})

const rows = await Effect.runPromise(Effect.scoped(program))
const gas = (value: bigint) => value.toLocaleString("en-US")
const ratio = (a: bigint, b: bigint) => (Number(a) / Number(b)).toFixed(2)
const lines = [
  "",
  `## Pay schedules (packages/adapters/bench/pay-schedules.bench.ts), ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC`,
  "",
  `Machine: ${cpus()[0]?.model ?? "unknown"} (${cpus().length} cores), ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${process.platform}-${process.arch}. Anvil (automine), chain id 42161, contracts version 5 compiled for Cancun with 200 optimizer runs.`,
  "",
  "Gas of a weekly schedule signed once (`executeSchedule`) and of one instalment (`executeInstalment`, its own",
  "transaction) paying each payee 1 USDC: instalment 0 to fresh recipients (a new balance slot each), instalment 1 a week",
  "later (anvil's time moved on) to the same recipients; against the same payments as plain ERC-20 `transfer`s from",
  "an EOA, one transaction each:",
  "",
  "| payees | register | instalment, fresh | per payee | plain transfers | ratio | instalment, returning | per payee | plain transfers | ratio |",
  "| -----: | -------: | ----------------: | --------: | --------------: | ----: | --------------------: | --------: | --------------: | ----: |",
  ...rows.map(
    (row) =>
      `| ${row.payees} | ${gas(row.register)} | ${gas(row.fresh)} | ${gas(row.fresh / BigInt(row.payees))} | ${gas(row.plainFresh)} | ${ratio(row.fresh, row.plainFresh)} | ${gas(row.returning)} | ${gas(row.returning / BigInt(row.payees))} | ${gas(row.plainReturning)} | ${ratio(row.returning, row.plainReturning)} |`
  ),
  ""
]
console.log(lines.join("\n"))
if (!smoke) appendFileSync(new URL("../../../bench/RESULTS.md", import.meta.url), lines.join("\n"))
process.exit(0)
