/**
 * The payout address routes (issue 39, decision 0108) over the domain's `PayoutAddresses`: one line per endpoint. The
 * report needs no bearer token: the link's token authorises it.
 */
import { Api, toApiError } from "@svc/contract"
import { PayoutAddresses } from "@svc/domain/payout"
import { Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { ok, respond } from "./Respond.ts"

/** The caller's payout address. */
export const PayoutHandlers = HttpApiBuilder.group(
  Api,
  "payoutAddresses",
  Effect.fn(function* (handlers) {
    const payouts = yield* PayoutAddresses
    return handlers.handleAll({
      get: () => respond((me) => payouts.get(me)),
      issueProof: ({ payload }) => respond((me) => payouts.issueProof(me, payload)),
      set: ({ payload }) => respond((me) => payouts.set(me, payload))
    })
  })
).pipe(Layer.provide(PayoutAddresses.layer))

/** Reports of payout address changes, from the link of their notice. */
export const PayoutReportHandlers = HttpApiBuilder.group(
  Api,
  "payoutReports",
  Effect.fn(function* (handlers) {
    const payouts = yield* PayoutAddresses
    return handlers.handleAll({
      report: ({ payload }) => payouts.report(payload).pipe(Effect.mapBoth({ onFailure: toApiError, onSuccess: ok }))
    })
  })
).pipe(Layer.provide(PayoutAddresses.layer))
