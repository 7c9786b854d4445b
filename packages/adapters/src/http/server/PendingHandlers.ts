/**
 * The payment and balance routes of a server started without a chain (decision 0016; manager invites answer 501 in
 * `InviteHandlersWithoutChain`): each checks the caller's permission on the team it names, exactly as the handler
 * served with a chain does, then answers 501 NOT_IMPLEMENTED.
 */

import { Api, apiError } from "@svc/contract"
import { TeamId } from "@svc/domain/Ids"
import { type Action, TeamAccess } from "@svc/domain/membership"
import { Effect, Layer, Schema } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { asCaller } from "./Respond.ts"

const pending = Effect.fail(apiError("NOT_IMPLEMENTED"))
const isTeamId = Schema.is(TeamId)

/** 501 once the caller may take `action` on the team `nanoid` names; company and user ids are the owning issue's. */
const pendingAfter = TeamAccess.useSync(
  (access) => (nanoid: string, action: Action) =>
    isTeamId(nanoid)
      ? Effect.andThen(
          asCaller((me) => access.authorize(me, nanoid, action)),
          pending
        )
      : pending
)

/** Payments: 501 after the permission check. */
export const PendingPaymentHandlers = HttpApiBuilder.group(
  Api,
  "payments",
  Effect.fn(function* (handlers) {
    const after = yield* pendingAfter
    return handlers.handleAll({
      query: ({ query }) => after(query.team_nanoid, "payments.read"),
      create: ({ payload }) => after(payload.from, "payments.create"),
      execute: ({ payload }) => after(payload.from, "payments.execute"),
      instant: ({ payload }) => after(payload.from, "payments.create"),
      // Without a chain no intent was ever registered: the payment is not found.
      cancelIntent: ({ params }) =>
        Effect.fail(apiError("PAYMENT_NOT_FOUND", `Payment ${params.payment_nanoid} not found`))
    })
  })
).pipe(Layer.provide(TeamAccess.layer))

/** Balance: 501 after the permission check. */
export const PendingBalanceHandlers = HttpApiBuilder.group(
  Api,
  "balance",
  Effect.fn(function* (handlers) {
    const after = yield* pendingAfter
    return handlers.handleAll({ get: ({ query }) => after(query.nanoid, "balance.read") })
  })
).pipe(Layer.provide(TeamAccess.layer))
