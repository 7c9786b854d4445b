import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Schema } from "effect"
import { TransactionMachine } from "./chain/TransactionMachine.ts"
import { DepositMachine } from "./deposit/DepositMachine.ts"
import { IssuedRequestMachine } from "./eip712/IssuedRequestMachine.ts"
import { InviteMachine } from "./invite/InviteMachine.ts"
import { InvoiceMachine } from "./invoice/InvoiceMachine.ts"
import { initialPaymentState, PaymentMachine } from "./payment/PaymentMachine.ts"
import { reachableStates, type StateMachine } from "./StateMachine.ts"
import { WebhookMachine } from "./webhook/WebhookMachine.ts"

// Business rules stated independently of the tables: a change to a table that breaks one fails the property tests.
const machines = [
  {
    machine: PaymentMachine as StateMachine<string, string>,
    initial: ["intent", "processing"],
    terminal: ["complete", "failed", "canceled"],
    rule: (from: string, _trigger: string, to: string) =>
      (to !== "complete" || from === "processing") &&
      (to !== "canceled" || from === "intent" || from === "scheduled") &&
      (to !== "processing" || from === "scheduled")
  },
  {
    machine: InviteMachine as StateMachine<string, string>,
    initial: ["pending"],
    terminal: ["accepted", "rejected", "expired", "revoked"],
    rule: (from: string) => from === "pending"
  },
  {
    // Paid only from what is left to pay; closed (canceled, rejected) only while nothing of it is paid; a paid
    // invoice stays paid (a reorganisation only names its payment's new transaction); a hold changes no state.
    machine: InvoiceMachine as StateMachine<string, string>,
    initial: ["submitted"],
    terminal: ["canceled", "rejected"],
    rule: (from: string, trigger: string, to: string) =>
      (!["paid", "partially_paid"].includes(to) || ["submitted", "partially_paid", "paid"].includes(from)) &&
      (!["canceled", "rejected"].includes(to) || from === "submitted") &&
      (from !== "paid" || (to === "paid" && trigger === "reorganise")) &&
      (trigger !== "hold" || to === from) &&
      (trigger !== "reorganise" || (to === from && from !== "submitted"))
  },
  {
    machine: WebhookMachine as StateMachine<string, string>,
    initial: ["active"],
    terminal: [],
    rule: (_from: string, trigger: string, to: string) => (to === "active") === (trigger === "enable")
  },
  {
    // In flight again only from a block the chain no longer holds; failed only before any block held it.
    machine: TransactionMachine as StateMachine<string, string>,
    initial: ["signed"],
    terminal: ["failed"],
    rule: (from: string, trigger: string, to: string) =>
      (to !== "sent" || from === "signed" || trigger === "reorganise") &&
      (trigger !== "reorganise" || from === "included" || from === "confirmed") &&
      (to !== "failed" || from === "signed" || from === "sent") &&
      to !== "signed"
  },
  {
    // Executed only by its holder's record; back to issued only by a release before the chain spent the salt.
    machine: IssuedRequestMachine as StateMachine<string, string>,
    initial: ["issued"],
    terminal: [],
    rule: (from: string, trigger: string, to: string) =>
      (to !== "executed" || (from === "executing" && trigger === "record")) &&
      (to !== "issued" || trigger === "release") &&
      (from !== "executed" || trigger === "reopen")
  },
  {
    // Announced (confirmed) only from pending; a confirmed deposit only leaves by a reorganisation.
    machine: DepositMachine as StateMachine<string, string>,
    initial: ["pending"],
    terminal: [],
    rule: (from: string, trigger: string, to: string) =>
      (to !== "confirmed" || from === "pending") && (from !== "confirmed" || trigger === "reorganise")
  }
] as const

describe("state machines", () => {
  for (const { machine, initial, terminal, rule } of machines) {
    const start = Schema.Literals(initial as unknown as readonly [string, ...Array<string>])
    const allowed = new Set(initial.flatMap((state) => [...reachableStates(machine, state)]))

    it.prop(
      `${machine.name}: no sequence of triggers leaves the table; illegal triggers fail and change nothing`,
      [start, Schema.Array(machine.Trigger)],
      ([from, triggers]) => {
        let state = from
        for (const trigger of triggers) {
          const exit = Effect.runSyncExit(machine.transition(state, trigger))
          const expected = machine.transitions[state]?.[trigger]
          if (expected === undefined) {
            assert.isTrue(Exit.isFailure(exit), `${state} --${trigger}-> should fail`)
            assert.include(String(exit), "IllegalTransition")
            continue
          }
          assert.isTrue(Exit.isSuccess(exit))
          if ((terminal as ReadonlyArray<string>).includes(state)) assert.fail(`left terminal state ${state}`)
          const to = Exit.isSuccess(exit) ? exit.value : state
          assert.isTrue(rule(state, trigger, to), `${state} --${trigger}-> ${to} breaks a rule`)
          state = to
          assert.isTrue(allowed.has(state), `reached ${state}`)
          assert.include(machine.states, state)
        }
      }
    )

    it.prop(
      `${machine.name}: run stops at the first illegal trigger`,
      [start, Schema.Array(machine.Trigger)],
      ([from, triggers]) => {
        const exit = Effect.runSyncExit(machine.run(from, triggers))
        let state: string | undefined = from
        for (const trigger of triggers) state = state === undefined ? undefined : machine.next(state, trigger)
        if (state === undefined) assert.isTrue(Exit.isFailure(exit))
        else assert.deepStrictEqual(exit, Exit.succeed(state))
      }
    )

    it(`${machine.name}: every state is reachable and every transition targets a declared state`, () => {
      assert.deepStrictEqual([...allowed].sort(), [...machine.states].sort())
      for (const state of machine.states) {
        for (const to of Object.values(machine.transitions[state] ?? {})) assert.include(machine.states, to)
      }
    })
  }

  it("payments: complete, failed and canceled are terminal; a payment is canceled only before it is sent", () => {
    for (const state of ["complete", "failed", "canceled"] as const) assert.isTrue(PaymentMachine.isTerminal(state))
    assert.isFalse(PaymentMachine.can("processing", "cancel"))
    assert.strictEqual(initialPaymentState(true), "processing")
    assert.strictEqual(initialPaymentState(false), "intent")
    const error = Effect.runSync(Effect.flip(PaymentMachine.transition("complete", "cancel")))
    assert.strictEqual(error._tag, "IllegalTransition")
    assert.strictEqual(error.errorCode, "INVALID_STATE_TRANSITION")
    assert.strictEqual(error.message, 'A payment in state "complete" cannot cancel')
  })

  it("invites: only a pending invite moves", () => {
    assert.deepStrictEqual(InviteMachine.triggersFrom("pending"), ["accept", "reject", "expire", "revoke"])
    for (const state of ["accepted", "rejected", "expired", "revoked"] as const)
      assert.isTrue(InviteMachine.isTerminal(state))
  })

  it("webhook endpoints: disabled by owner, 410 or failing; enabled again by owner", () => {
    assert.deepStrictEqual(WebhookMachine.triggersFrom("active"), ["disable", "gone", "failing"])
    assert.deepStrictEqual(WebhookMachine.triggersFrom("disabled"), ["enable"])
  })
})
