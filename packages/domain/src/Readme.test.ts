import { execFileSync } from "node:child_process"
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { assert, describe, it } from "@effect/vitest"
import { TransactionMachine } from "./chain/TransactionMachine.ts"
import { DepositMachine } from "./deposit/DepositMachine.ts"
import { IssuedRequestMachine } from "./eip712/IssuedRequestMachine.ts"
import { InviteMachine } from "./invite/InviteMachine.ts"
import { InvoiceMachine } from "./invoice/InvoiceMachine.ts"
import { MemberBlockMachine } from "./membership/MemberBlock.ts"
import { PaymentMachine } from "./payment/PaymentMachine.ts"
import type { StateMachine } from "./StateMachine.ts"
import { PayScheduleMachine } from "./schedule/PaySchedule.ts"
import { WebhookMachine } from "./webhook/WebhookMachine.ts"

const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8")

/** The `from --> to: trigger` lines of the `nth` mermaid diagram under a heading, without the [*] ones. */
const diagramOf = (heading: string, nth = 0): Array<string> => {
  const section = readme.slice(readme.indexOf(`### ${heading}`))
  const block = [...section.matchAll(/```mermaid\n([\s\S]*?)```/g)][nth]?.[1] ?? ""
  return Array.from(
    block.matchAll(/^\s*(\w+) --> (\w+): (\w+)$/gm),
    ([, from, to, trigger]) => `${from} ${trigger} ${to}`
  )
}

const tableOf = (machine: StateMachine<string, string>): Array<string> =>
  machine.states.flatMap((from) =>
    Object.entries(machine.transitions[from] ?? {}).map(([trigger, to]) => `${from} ${trigger} ${to}`)
  )

describe("README", () => {
  it("the example builds, signs and verifies a batch when run with node", () => {
    const code = /<!-- example -->\n```ts\n([\s\S]*?)```/.exec(readme)?.[1]
    assert.isDefined(code)
    // Inside the package, so `@svc/domain/...` resolves through the package's own exports map.
    const dir = new URL("../build/readme/", import.meta.url)
    mkdirSync(dir, { recursive: true })
    const file = new URL("example.ts", dir)
    writeFileSync(file, code ?? "")
    const output = execFileSync(process.execPath, [file.pathname], { encoding: "utf8", timeout: 30_000 })
    assert.match(output, /^verified CreatePaymentsForwardRequest 0x[0-9a-f]{64}\n$/)
  })

  const settlement = "Issued request, journaled transaction, deposit"
  for (const [heading, machine, nth] of [
    ["Payment", PaymentMachine, 0],
    ["Pay schedule", PayScheduleMachine, 0],
    ["Invite", InviteMachine, 0],
    ["Invoice", InvoiceMachine, 0],
    ["Webhook endpoint", WebhookMachine, 0],
    [settlement, IssuedRequestMachine, 0],
    [settlement, TransactionMachine, 1],
    [settlement, DepositMachine, 2],
    ["Member block", MemberBlockMachine, 0]
  ] as const) {
    it(`the ${machine.name} diagram shows exactly the machine's transitions`, () => {
      assert.deepStrictEqual(diagramOf(heading, nth).sort(), tableOf(machine as StateMachine<string, string>).sort())
    })
  }
})
