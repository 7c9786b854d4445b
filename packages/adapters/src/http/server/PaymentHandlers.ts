/**
 * The payment routes (SPEC §4.3, §4.5, §4.6, §4.7) and the balance route (DESIGN §5) on the chain: typed data is
 * issued and recorded, signed requests execute once, the query reads the ledger. docs/payments.md tells the flow.
 */
import { ChainGateway } from "@svc/domain/chain"
import type { TeamId, UserId } from "@svc/domain/Ids"
import { MembershipRepository } from "@svc/domain/membership"
import { amountCentsOf, type LedgerQuery, PaymentLedger, paymentStateFilter } from "@svc/domain/payment"
import { UserRepository } from "@svc/domain/user"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import type { Address } from "viem"
import { Api } from "../Api.ts"
import { apiError } from "../ApiError.ts"
import { CurrentUser } from "../Authentication.ts"
import { executePayments } from "./PaymentExecution.ts"
import { issueBatch, issueInstant, userAccountOf } from "./PaymentIssuance.ts"
import { paymentItemsOf } from "./PaymentItems.ts"
import { authorize } from "./TeamAccess.ts"

const dayStart = (date: string) => Math.floor(Date.parse(`${date}T00:00:00.000Z`) / 1000)

/** Payments on the chain and the ledger. */
export const PaymentHandlers = HttpApiBuilder.group(Api, "payments", (handlers) =>
  handlers
    .handle("query", ({ query }) =>
      Effect.gen(function* () {
        const { team } = yield* authorize(query.team_nanoid, "payments.read")
        const states = paymentStateFilter[query.state]
        let filter: LedgerQuery
        if (query.query_type === "payable") {
          filter = {
            states,
            payer: team.nanoid,
            ...(query.recipient === undefined ? {} : { recipients: [query.recipient] })
          }
        } else {
          const page = yield* MembershipRepository.use((m) => m.listTeam(team.nanoid, { offset: 0, limit: undefined }))
          const members = page.members.map((m) => m.user_nanoid)
          const recipients = query.recipient === undefined ? members : members.filter((id) => id === query.recipient)
          filter = { states, notPayer: team.nanoid, recipients }
        }
        const dated: LedgerQuery = {
          ...filter,
          ...(query.start_date === undefined ? {} : { createdFrom: dayStart(query.start_date) }),
          ...(query.end_date === undefined ? {} : { createdTo: dayStart(query.end_date) + 86_399 })
        }
        const payments = yield* PaymentLedger.use((ledger) => ledger.list(dated))
        return { data: { items: yield* paymentItemsOf(payments) } }
      })
    )
    .handle("create", ({ payload }) =>
      Effect.gen(function* () {
        const { team, me } = yield* authorize(payload.from, "payments.create")
        return { success: true as const, data: yield* issueBatch(team, me, payload) }
      })
    )
    .handle("execute", ({ payload }) =>
      Effect.gen(function* () {
        const { team } = yield* authorize(payload.from, "payments.execute")
        return { success: true, data: yield* executePayments(team, payload) }
      })
    )
    .handle("instant", ({ payload }) =>
      Effect.gen(function* () {
        const { team, me } = yield* authorize(payload.from, "payments.create")
        return { success: true as const, data: yield* issueInstant(team, me, payload) }
      })
    )
)

/** The svc account whose balance `nanoid` names, if the caller may see it. */
const accountOf = Effect.fn("BalanceHandlers.accountOf")(function* (nanoid: string) {
  if (nanoid.startsWith("te-")) {
    const { team } = yield* authorize(nanoid as TeamId, "balance.read")
    if (team.svc_account === "") return yield* Effect.fail(apiError("NOT_FOUND", "The team has no svc account yet"))
    return team.svc_account as Address
  }
  if (nanoid.startsWith("us-")) {
    const me = yield* CurrentUser
    if (me.nanoid !== nanoid) return yield* Effect.fail(apiError("INSUFFICIENT_PERMISSIONS", "Only your own balance"))
    const user = yield* UserRepository.use((u) => u.findById(nanoid as UserId))
    if (user._tag === "None") return yield* Effect.fail(apiError("USER_NOT_FOUND"))
    return yield* userAccountOf(user.value)
  }
  return yield* Effect.fail(apiError("NOT_FOUND", "Company accounts have no balance here"))
})

/** GET /v2/balance: the svc account and its settlement-token balance in cents. */
export const BalanceHandlers = HttpApiBuilder.group(Api, "balance", (handlers) =>
  handlers.handle("get", ({ query }) =>
    Effect.gen(function* () {
      const address = yield* accountOf(query.nanoid)
      const units = yield* ChainGateway.use((chain) => chain.balanceOf(address)).pipe(Effect.orDie)
      const currencies = query.currencies?.split(",")
      const balances =
        currencies === undefined || currencies.includes("USD")
          ? [{ currency: "USD", balance_cents: amountCentsOf(units.toString()) }]
          : []
      return { success: true as const, data: { svc_account_address: address, balances } }
    })
  )
)
