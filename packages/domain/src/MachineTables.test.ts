/**
 * The transition tables of settlement's four machines are in docs/settlement.md as `transitionTable` prints them
 * (decision 0091): a table changed in code and not in the docs, or the other way round, fails here, and the failure
 * prints the table as it now is.
 */
import { readFileSync } from "node:fs"
import { assert, describe, it } from "@effect/vitest"
import { TransactionMachine } from "./chain/TransactionMachine.ts"
import { DepositMachine } from "./deposit/DepositMachine.ts"
import { IssuedRequestMachine } from "./eip712/IssuedRequestMachine.ts"
import { PaymentMachine } from "./payment/PaymentMachine.ts"
import { type StateMachine, transitionTable } from "./StateMachine.ts"

const docs = readFileSync(new URL("../../../docs/settlement.md", import.meta.url), "utf8")

/** A Markdown table's text without its alignment: a formatter may pad the cells. */
const normalised = (text: string) =>
  text
    .split("\n")
    .map((line) =>
      line
        .trim()
        .replace(/\s*\|\s*/g, "|")
        .replace(/-{3,}/g, "---")
    )
    .join("\n")

describe("settlement's machines in docs/settlement.md", () => {
  for (const machine of [PaymentMachine, IssuedRequestMachine, TransactionMachine, DepositMachine]) {
    it(`the ${machine.name} machine's table is there, as the machine has it`, () => {
      const table = transitionTable(machine as StateMachine<string, string>)
      assert.include(
        normalised(docs),
        normalised(table),
        `docs/settlement.md lacks the ${machine.name} machine as it is:\n\n${table}\n`
      )
    })
  }
})
