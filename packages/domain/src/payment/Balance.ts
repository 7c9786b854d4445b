/**
 * The balance route (DESIGN §5: GET /v2/balance?nanoid=...): the svc account's address and its balances in cents.
 */
import { Schema } from "effect"
import { Address } from "../Evm.ts"
import { CompanyId, TeamId, UserId } from "../Ids.ts"

/** GET /v2/balance query: whose balance, and optionally which currencies (a comma-separated list). */
export const BalanceQuery = Schema.Struct({
  nanoid: Schema.Union([TeamId, CompanyId, UserId]),
  currencies: Schema.optionalKey(
    Schema.String.pipe(
      Schema.check(
        Schema.isPattern(/^[A-Z]{3}(,[A-Z]{3}){0,9}$/u, {
          expected: "up to 10 comma-separated currency codes",
          message: "Expected up to 10 comma-separated currency codes such as USD,EUR"
        })
      )
    )
  )
})
export type BalanceQuery = typeof BalanceQuery.Type

/** One currency's balance in integer cents. */
export const CurrencyBalance = Schema.Struct({ currency: Schema.String, balance_cents: Schema.Int })
export type CurrencyBalance = typeof CurrencyBalance.Type

/** GET /v2/balance response. */
export const BalanceResponse = Schema.Struct({
  success: Schema.Literal(true),
  data: Schema.Struct({ svc_account_address: Address, balances: Schema.Array(CurrencyBalance) })
})
export type BalanceResponse = typeof BalanceResponse.Type
