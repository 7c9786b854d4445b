/**
 * Verifications per second of a signed 10-entry batch: the domain's verifier beside viem's and ethers'
 * `verifyTypedData`, measured in the same run. Run: `node packages/domain/bench/domain-verify.bench.ts`.
 * Appends a section to the repository's `bench/RESULTS.md` with the machine and date.
 */
import { appendFileSync, existsSync, mkdirSync, writeFileSync } from "node:fs"
import { cpus, platform, release, totalmem } from "node:os"
import { Effect } from "effect"
import { verifyTypedData as ethersVerifyTypedData } from "ethers"
import { keccak256, toHex, verifyTypedData as viemVerifyTypedData } from "viem"
import { privateKeyToAccount } from "viem/accounts"
import type { PaymentEntry } from "../src/eip712/TypedData.ts"
import { paymentsTypedData } from "../src/eip712/TypedDataBuilder.ts"
import { signableOf, signTypedDataBundle, verifyTypedDataSignature } from "../src/eip712/TypedDataSignature.ts"
import { SignatureVerifier } from "../src/signature/SignatureVerifier.ts"

const key = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"
const signer = privateKeyToAccount(key).address
const entries = Array.from(
  { length: 10 },
  (_, i): PaymentEntry => ({
    id: keccak256(toHex(`pa-${String(i).padStart(12, "0")}`)),
    groupID: keccak256(toHex("pg-000000000001")),
    payAtTime: "1795766000",
    validMinutes: "1440",
    payType: "1",
    token: "0xaf88d065e77c8cC2239327C5EDb3A432268e5831",
    recipient: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
    amount: String(1_000_000 * (i + 1)),
    data: "0x"
  })
) as [PaymentEntry, ...Array<PaymentEntry>]
const bundle = paymentsTypedData(
  { chainId: 42161, verifyingContract: "0x5FbDB2315678afecb367f032d93F642f64180aa3" },
  { from: signer, to: "0x90F79bf6EB2c4f870365E785982E1f101E93b906", salt: "1", expires: "1795766400" },
  entries
)
const signature = await Effect.runPromise(signTypedDataBundle(bundle, key))
const json = JSON.parse(JSON.stringify(bundle))

const contestants: Record<string, () => Promise<boolean>> = {
  "viem verifyTypedData (baseline)": () => viemVerifyTypedData({ ...signableOf(bundle), address: signer, signature }),
  "domain verifyTypedDataSignature": () =>
    Effect.runPromise(
      verifyTypedDataSignature({ bundle, signer, signature }).pipe(
        Effect.as(true),
        Effect.provide(SignatureVerifier.layer)
      )
    ),
  "ethers verifyTypedData": async () =>
    ethersVerifyTypedData(json.domain, json.types, json.typed_data, signature) === signer
}

const measure = async (run: () => Promise<boolean>, millis: number) => {
  const start = performance.now()
  let count = 0
  while (performance.now() - start < millis) {
    if (!(await run())) throw new Error("verification failed")
    count++
  }
  return (count * 1000) / (performance.now() - start)
}

/** `BENCH_SMOKE=1`: one short round of each, written nowhere. */
const smoke = process.env.BENCH_SMOKE === "1"
const rounds = smoke ? 1 : 3
const millis = Number(process.env.BENCH_MILLIS ?? (smoke ? 200 : 2000))
for (const run of Object.values(contestants)) await measure(run, smoke ? 50 : 300) // warm up JIT and lazy imports
const results: Record<string, Array<number>> = {}
for (let round = 0; round < rounds; round++) {
  for (const [name, run] of Object.entries(contestants)) {
    const ops = await measure(run, millis)
    results[name] = [...(results[name] ?? []), ops]
  }
}
const median = (xs: Array<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0
const baseline = median(results["viem verifyTypedData (baseline)"] ?? [])
const rows = Object.entries(results).map(([name, xs]) => {
  const ops = median(xs)
  return `| ${name} | ${ops.toFixed(0)} | ${(ops / baseline).toFixed(2)}x |`
})

const cpu = cpus()
const section = [
  `## domain: EIP-712 verification of a 10-entry batch (${new Date().toISOString().slice(0, 10)})`,
  "",
  `Machine: ${cpu[0]?.model ?? "unknown CPU"} x ${cpu.length}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, ${platform()} ${release()}, Node ${process.version}.`,
  `Median of ${rounds} rounds of ${millis} ms each, after a warm-up; one verification = digest + ECDSA recovery + address check.`,
  "",
  "| verifier | verifications/s | vs viem |",
  "| --- | ---: | ---: |",
  ...rows,
  "",
  "Command: `node packages/domain/bench/domain-verify.bench.ts`.",
  ""
].join("\n")
console.log(section)

const resultsFile = new URL("../../../bench/RESULTS.md", import.meta.url)
if (smoke) process.exit(0)
if (!existsSync(resultsFile)) {
  mkdirSync(new URL(".", resultsFile), { recursive: true })
  writeFileSync(
    resultsFile,
    "# Benchmark results\n\nEach benchmark appends a section: what, machine, date, figures.\n\n"
  )
}
appendFileSync(resultsFile, `\n${section}`)
