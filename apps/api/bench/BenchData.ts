/**
 * A database that already holds a working company's data, for the "loaded" runs of the API benchmarks (issue 9): 10,000
 * users in 100 other teams and 100,000 executed payments, stored through the server's own ports (the same rows and
 * indexes the API writes), in requests of 1,000 payments.
 */
import { CompanyRepository, newCompany } from "@svc/domain/company"
import { walletAddressOf } from "@svc/domain/Evm"
import { IssuedRequestStore, paymentsTypedData } from "@svc/domain/eip712"
import {
  IdGenerator,
  type InvoiceId,
  type PaymentGroupId,
  type PaymentId,
  type TeamId,
  type UserId
} from "@svc/domain/Ids"
import { MembershipRepository } from "@svc/domain/membership"
import { invoiceOf, type Payment, PaymentLedger } from "@svc/domain/payment"
import { TeamRepository } from "@svc/domain/team"
import { newUser, UserRepository } from "@svc/domain/user"
import { Effect } from "effect"

const hex = (n: number, length: number) => n.toString(16).padStart(length, "0")

/** Stores `users` users (in teams of 100) and `payments` payments; answers what it stored. */
export const storeBulk = Effect.fn("BenchData.storeBulk")(function* (options: {
  readonly users: number
  readonly payments: number
}) {
  const ids = yield* IdGenerator
  const now = new Date().toISOString()
  const companyId = yield* ids.make("company")
  yield* CompanyRepository.use((c) => c.insert(newCompany({ nanoid: companyId, name: "Bulk Co", created_at: now })))
  const teams: Array<TeamId> = []
  const users: Array<UserId> = []
  for (let i = 0; i < options.users; i++) {
    if (i % 100 === 0) {
      const team = yield* ids.make("team")
      yield* TeamRepository.use((t) =>
        t.insert({
          nanoid: team,
          company_nanoid: companyId,
          name: `Bulk team ${teams.length}`,
          description: "",
          avatar: "",
          svc_account: `0x${hex(teams.length + 1, 40)}`,
          status: "active",
          created_at: now,
          updated_at: now
        })
      )
      teams.push(team)
    }
    const user = newUser({
      nanoid: yield* ids.make("user"),
      wallet: walletAddressOf(`0x${"b".repeat(8)}${hex(i, 32)}`),
      email: `bulk${i}@bulk.example`,
      first_name: "Bulk",
      last_name: String(i),
      created_at: now
    })
    yield* UserRepository.use((u) => u.insert(user)).pipe(Effect.orDie)
    yield* MembershipRepository.use((m) =>
      m.insert({
        nanoid: `re-${hex(i, 12)}` as never,
        team_nanoid: teams.at(-1) as TeamId,
        user_nanoid: user.nanoid,
        role: "team_employee",
        email: user.email,
        created_at: now
      })
    ).pipe(Effect.orDie)
    users.push(user.nanoid)
  }
  const store = yield* IssuedRequestStore
  const ledger = yield* PaymentLedger
  const perRequest = 1000
  for (let request = 0; request * perRequest < options.payments; request++) {
    const team = teams[request % teams.length] as TeamId
    const salt = String(10n ** 30n + BigInt(request))
    const group = `pg-${hex(request, 12)}` as PaymentGroupId
    const payments: Array<Payment> = Array.from({ length: perRequest }, (_, k) => {
      const n = request * perRequest + k
      return {
        nanoid: `pa-${hex(n, 12)}` as PaymentId,
        group_nanoid: group,
        invoice_nanoid: `iv-${hex(n, 12)}` as InvoiceId,
        team_nanoid: team,
        payer_nanoid: users[0] as UserId,
        recipient_nanoid: users[n % users.length] as UserId,
        state: "complete",
        amount_cents: 100 + (n % 1000),
        currency_symbol: "USD",
        token: `0x${"4".repeat(40)}`,
        token_amount: String((100 + (n % 1000)) * 10_000),
        token_decimals: 6,
        pay_type: "1",
        pay_at_time: 0,
        valid_minutes: 0,
        onchain_id: `0x${hex(n, 64)}`,
        group_onchain_id: `0x${hex(request, 64)}`,
        data: "0x",
        salt,
        invoice: invoiceOf(`bulk ${n}`),
        creation_transaction: `0x${hex(request, 64)}`,
        process_transaction: `0x${hex(request, 64)}`,
        created_at: now,
        updated_at: now
      }
    })
    yield* store.issue({
      kind: "batch",
      salt,
      team,
      issuedTo: users[0] as UserId,
      signer: walletAddressOf(`0x${"2".repeat(40)}`),
      // A well-formed bundle (the stores decode what they read); these runs never execute it again.
      // An hour to run (the stores keep its expiry beside it: issue 14).
      bundle: paymentsTypedData(
        { chainId: 42161, verifyingContract: `0x${"1".repeat(40)}` },
        {
          from: `0x${"2".repeat(40)}`,
          to: `0x${"3".repeat(40)}`,
          salt,
          expires: String(Math.floor(Date.now() / 1000) + 3600)
        },
        [
          {
            id: `0x${hex(request, 64)}`,
            groupID: `0x${hex(request, 64)}`,
            payAtTime: "0",
            validMinutes: "1440",
            payType: "1",
            token: `0x${"4".repeat(40)}`,
            recipient: `0x${"5".repeat(40)}`,
            amount: "1000000",
            data: "0x"
          }
        ]
      ),
      request: {
        body: { from: team, to: [], pay_now: true },
        group_nanoid: group,
        account: `0x${"3".repeat(40)}`,
        payments: []
      }
    })
    const at = Date.now()
    const claimed = yield* store.claim(salt, { now: at, until: at + 20_000, signature: "0x" }).pipe(Effect.orDie)
    yield* ledger.recordExecution({
      salt,
      token: claimed.claim.token,
      result: { transaction: `0x${hex(request, 64)}`, payments: [] },
      payments
    })
  }
  return { teams: teams.length, users: users.length, payments: options.payments }
})
