/**
 * `svc pay` and `svc pay-instant`: payments signed here, with the domain's own EIP-712 code (`signTypedDataBundle`),
 * after checking that the typed data the API issued pays what was asked.
 */
import { readFileSync } from "node:fs"
import type { Email } from "@svc/domain/Email"
import type { Signature, WalletAddress } from "@svc/domain/Evm"
import { signTypedDataBundle } from "@svc/domain/eip712"
import type { InvoiceId, UserId } from "@svc/domain/Ids"
import { maxBatchSize, tokenAmountOf } from "@svc/domain/payment"
import { Console, Effect, Option, Redacted } from "effect"
import { Command, Flag, Prompt } from "effect/cli"
import { privateKeyToAccount } from "viem/accounts"
import { answer } from "../Api.ts"
import { badArgument, CliFailure } from "../Failure.ts"
import { requireKey } from "../Keys.ts"
import { formatCents, parseCents } from "../Money.ts"
import { fields, localDate, show, table } from "../Output.ts"
import { batchesOf, type Payee, parseCsv, parseToEntry } from "../Payees.ts"
import { type RootFlags, svc } from "../Root.ts"
import { authenticatedAs } from "../Session.ts"
import { teamId } from "./Ids.ts"
import { invoicePayees } from "./Invoices.ts"

export const teamFlag = Flag.String("team").pipe(Flag.withDescription("The paying team's nanoid (te-...)"))
export const yesFlag = Flag.Boolean("yes").pipe(
  Flag.withAlias("y"),
  Flag.withDescription("Sign and pay without asking"),
  Flag.withDefault(false)
)

/** Asks before signing, unless `--yes`; without a terminal to ask on, refuses. */
export const confirm = (yes: boolean, message: string) =>
  Effect.gen(function* () {
    if (yes) return
    if (process.stdin.isTTY !== true) {
      return yield* new CliFailure({ message: "not a terminal, so nobody can confirm: pass --yes to sign and pay" })
    }
    const confirmed = yield* Prompt.run(Prompt.Confirm({ message })).pipe(Effect.orElseSucceed(() => false))
    if (!confirmed) return yield* new CliFailure({ message: "canceled: nothing was signed" })
  })

/** Progress over batches, on stderr: one line rewritten on a terminal, a line per batch otherwise. */
const progress = (done: number, total: number, paid: number, payees: number) =>
  Effect.sync(() => {
    const width = 24
    const filled = Math.round((done / total) * width)
    const line = `[${"#".repeat(filled)}${"-".repeat(width - filled)}] batch ${done}/${total}, ${paid}/${payees} payments`
    if (process.stderr.isTTY === true) process.stderr.write(`\r${line}${done === total ? "\n" : ""}`)
    else process.stderr.write(`${line}\n`)
  })

/** Refuses to sign typed data that does not pay exactly the batch asked for (count and each amount). */
const checkIssued = (batch: ReadonlyArray<Payee>, issued: ReadonlyArray<{ readonly amount: string }>) =>
  issued.length === batch.length &&
  issued.every((payment, index) => BigInt(payment.amount) === BigInt(tokenAmountOf(batch[index]?.amount_cents ?? 0)))
    ? Effect.void
    : Effect.fail(
        new CliFailure({ message: "the typed data the API issued does not pay what was asked: nothing was signed" })
      )

/** Who is paid how much, and for what: a member's invoice by its number and id (`svc pay`, `svc schedules create`). */
export const payeesTable = (payees: ReadonlyArray<Payee>) =>
  table(payees, [
    { header: "RECIPIENT", cell: (p) => p.to },
    { header: "AMOUNT", cell: (p) => formatCents(p.amount_cents), right: true },
    {
      header: "DESCRIPTION",
      cell: (p) => (p.invoice === undefined ? p.invoice_description : `${p.invoice_description} (${p.invoice})`)
    }
  ])

/** What `svc pay` is about to do, as a table and a total. */
const summaryOf = (team: string, payees: ReadonlyArray<Payee>, batches: number, when: string) => {
  const total = payees.reduce((sum, payee) => sum + payee.amount_cents, 0)
  return [
    payeesTable(payees),
    "",
    fields([
      ["Team", team],
      ["Payees", String(payees.length)],
      ["Total", formatCents(total)],
      ["Batches", String(batches)],
      ["When", when]
    ])
  ].join("\n")
}

export const signer = (flags: RootFlags) =>
  Effect.map(requireKey(flags.keyFile), (key) => ({
    walletKey: key,
    key: key.privateKey,
    address: privateKeyToAccount(Redacted.value(key.privateKey)).address.toLowerCase() as WalletAddress
  }))

export const pay = Command.make(
  "pay",
  {
    team: teamFlag,
    to: Flag.String("to").pipe(
      Flag.withDescription("A payee and amount in dollars, RECIPIENT=AMOUNT such as us-xxxxxxxxxxxx=12.34 (repeat)"),
      Flag.atLeast(0)
    ),
    invoice: Flag.String("invoice").pipe(
      Flag.withDescription(
        "A member's invoice to pay what is left of (iv-...; repeat); shown before anything is signed"
      ),
      Flag.atLeast(0)
    ),
    csv: Flag.String("csv").pipe(
      Flag.withDescription("A CSV file of recipient,amount[,description] lines (a header line is skipped)"),
      Flag.optional
    ),
    description: Flag.String("description").pipe(
      Flag.withDescription("Invoice description for payees without their own"),
      Flag.withDefault("Payment")
    ),
    later: Flag.Boolean("later").pipe(
      Flag.withDescription("Register intents, paid later by the API's intent runner, instead of paying now"),
      Flag.withDefault(false)
    ),
    at: Flag.String("at").pipe(
      Flag.withDescription(
        "When the intents become due (an ISO date-time such as 2026-12-01T09:00:00Z); implies --later"
      ),
      Flag.optional
    ),
    batchSize: Flag.Int("batch-size").pipe(
      Flag.withDescription(`Payees per signed batch, 1 to ${maxBatchSize} (default 100)`),
      Flag.withDefault(100)
    ),
    yes: yesFlag
  },
  Effect.fn("svc.pay")(function* (input) {
    const flags = yield* svc
    const team = yield* teamId("--team", input.team)
    if (input.batchSize < 1 || input.batchSize > maxBatchSize) {
      return yield* badArgument("--batch-size", `expected 1 to ${maxBatchSize}`)
    }
    const payees: Array<Payee> = []
    for (const entry of input.to) payees.push(yield* parseToEntry(entry, input.description))
    if (Option.isSome(input.csv)) {
      const path = input.csv.value
      const text = yield* Effect.try({
        try: () => readFileSync(path, "utf8"),
        catch: () => badArgument("--csv", `cannot read ${path}`)
      })
      payees.push(...(yield* parseCsv(path, text, input.description)))
    }
    // Invoices are read first, as the wallet that pays them: the summary shows what they say is left to pay.
    const early = input.invoice.length === 0 ? undefined : yield* signer(flags)
    if (early !== undefined) {
      const { client } = yield* authenticatedAs(flags, early.walletKey)
      payees.push(...(yield* invoicePayees(flags.url, client, input.invoice)))
    }
    if (payees.length === 0) {
      return yield* badArgument("payees", "give --to RECIPIENT=AMOUNT entries, --invoice iv-... or --csv FILE")
    }
    let payAtTime: number | undefined
    if (Option.isSome(input.at)) {
      const millis = Date.parse(input.at.value)
      if (Number.isNaN(millis)) return yield* badArgument("--at", `"${input.at.value}" is not a date-time`)
      payAtTime = Math.floor(millis / 1000)
    }
    const payNow = !input.later && payAtTime === undefined
    const batches = batchesOf(payees, input.batchSize)
    const when = payNow ? "now" : `intent, due ${payAtTime === undefined ? "now" : localDate(payAtTime)}`
    const summary = summaryOf(team, payees, batches.length, when)
    // With --json, stdout carries only the API's answers.
    yield* flags.json ? Effect.sync(() => process.stderr.write(`${summary}\n`)) : Console.log(summary)
    const wallet = early ?? (yield* signer(flags))
    yield* confirm(
      input.yes,
      `Sign and ${payNow ? "pay" : "register"} ${formatCents(payees.reduce((s, p) => s + p.amount_cents, 0))}?`
    )
    const { client } = yield* authenticatedAs(flags, wallet.walletKey)
    let paid = 0
    for (const [index, batch] of batches.entries()) {
      const to = batch.map((payee) =>
        payee.invoice === undefined
          ? {
              to: payee.to as UserId,
              amount_cents: payee.amount_cents,
              currency_symbol: "USD" as const,
              invoice_description: payee.invoice_description
            }
          : { invoice_nanoid: payee.invoice as InvoiceId }
      )
      const body = { from: team, to, pay_now: payNow, network: "arbitrum" as const }
      const issued = yield* answer(
        flags.url,
        client.payments.create({
          payload: { ...body, ...(payAtTime === undefined ? {} : { pay_at_time: payAtTime }) },
          responseMode: "decoded-and-response"
        })
      )
      yield* checkIssued(batch, issued.value.data.typed_data.data.payments)
      const signature = yield* signTypedDataBundle(issued.value.data, Redacted.value(wallet.key))
      const executed = yield* answer(
        flags.url,
        client.payments.execute({
          payload: {
            ...body,
            signer: wallet.address,
            typed_data: issued.value.data.typed_data,
            signature: signature as Signature
          },
          responseMode: "decoded-and-response"
        })
      )
      paid += batch.length
      yield* progress(index + 1, batches.length, paid, payees.length)
      yield* flags.json
        ? Console.log(executed.text)
        : Console.log(
            `batch ${index + 1}/${batches.length}: ${batch.length} ${payNow ? "paid" : "registered"}, transaction ${executed.value.data.transaction}`
          )
    }
    if (!flags.json) {
      yield* Console.log(
        `${payNow ? "Paid" : "Registered intents for"} ${formatCents(payees.reduce((s, p) => s + p.amount_cents, 0))} to ${payees.length} ${payees.length === 1 ? "payee" : "payees"}`
      )
    }
  })
).pipe(
  Command.withDescription(
    "Pay members of a team: shows what will be paid, asks, signs the EIP-712 typed data here and executes it " +
      "(batches for long lists). --later/--at register intents instead"
  ),
  Command.withExamples([
    {
      command: "svc pay --team te-xxxxxxxxxxxx --to us-aaaaaaaaaaaa=12.34 --to us-bbbbbbbbbbbb=5",
      description: "Two payees"
    },
    {
      command: "svc pay --team te-xxxxxxxxxxxx --csv payroll.csv --yes",
      description: "Hundreds of payees from a CSV, no prompt"
    },
    {
      command: "svc pay --team te-xxxxxxxxxxxx --invoice iv-aaaaaaaaaaaa --invoice iv-bbbbbbbbbbbb",
      description: "Two members' invoices, what is left of each, shown before signing"
    }
  ])
)

export const payInstant = Command.make(
  "pay-instant",
  {
    team: teamFlag,
    email: Flag.String("email").pipe(Flag.withDescription("The recipient's e-mail (someone outside the service)")),
    amount: Flag.String("amount").pipe(Flag.withDescription("Dollars and cents, 1.00 to 100000000.00")),
    description: Flag.String("description").pipe(
      Flag.withDescription("Invoice description"),
      Flag.withDefault("Payment")
    ),
    yes: yesFlag
  },
  Effect.fn("svc.pay-instant")(function* (input) {
    const flags = yield* svc
    const team = yield* teamId("--team", input.team)
    const amount_cents = yield* parseCents("--amount", input.amount)
    if (amount_cents < 100) return yield* badArgument("--amount", "an instant payment is at least 1.00")
    if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(input.email)) {
      return yield* badArgument("--email", `"${input.email}" is not an e-mail address`)
    }
    const summary = fields([
      ["Team", team],
      ["To", input.email],
      ["Amount", formatCents(amount_cents)],
      ["Description", input.description]
    ])
    yield* flags.json ? Effect.sync(() => process.stderr.write(`${summary}\n`)) : Console.log(summary)
    const wallet = yield* signer(flags)
    yield* confirm(input.yes, `Sign and pay ${formatCents(amount_cents)} to ${input.email}?`)
    const { client } = yield* authenticatedAs(flags, wallet.walletKey)
    const issued = yield* answer(
      flags.url,
      client.payments.instant({
        payload: {
          from: team,
          amount_cents,
          external_recipient_email: input.email as Email,
          payment_data: { invoice_description: input.description, services_description: "", payment_details: "" },
          currency_symbol: "USD",
          network: "arbitrum"
        },
        responseMode: "decoded-and-response"
      })
    )
    const entry = issued.value.data.typed_data.data
    if (BigInt(entry.amount) !== BigInt(tokenAmountOf(amount_cents))) {
      return yield* new CliFailure({
        message: "the typed data the API issued does not pay what was asked: nothing was signed"
      })
    }
    const signature = yield* signTypedDataBundle(issued.value.data, Redacted.value(wallet.key))
    const executed = yield* answer(
      flags.url,
      client.payments.execute({
        payload: {
          from: team,
          to: [
            { to: input.email as Email, amount_cents, currency_symbol: "USD", invoice_description: input.description }
          ],
          pay_now: true,
          network: "arbitrum",
          signer: wallet.address,
          typed_data: issued.value.data.typed_data,
          signature: signature as Signature
        },
        responseMode: "decoded-and-response"
      })
    )
    yield* show(
      flags.json,
      executed,
      ({ data }) => `Paid ${formatCents(amount_cents)} to ${input.email}, transaction ${data.transaction}`
    )
  })
).pipe(Command.withDescription("Pay someone outside the service by e-mail (signed here, claimable by that e-mail)"))
