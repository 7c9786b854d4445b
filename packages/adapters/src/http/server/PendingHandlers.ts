/**
 * Routes the contract has and later issues serve (payments, invites, webhooks, balance). Until then each one checks
 * the caller's permission on the team it names, exactly as the real handler will, and answers 501 NOT_IMPLEMENTED;
 * the owning issue replaces the group's layer.
 */
import type { TeamId } from "@svc/domain/Ids"
import type { Action } from "@svc/domain/membership"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../Api.ts"
import { apiError } from "../ApiError.ts"
import { authorize } from "./TeamAccess.ts"

const pending = Effect.fail(apiError("NOT_IMPLEMENTED"))

/** Team ids are checked now; company and user ids are left to the owning issue (which answers 501 until then). */
const authorizeTeam = (nanoid: string, action: Action) =>
  nanoid.startsWith("te-") ? Effect.asVoid(authorize(nanoid as TeamId, action)) : Effect.void

/** Payments: 501 after the permission check. */
export const PendingPaymentHandlers = HttpApiBuilder.group(Api, "payments", (handlers) =>
  handlers
    .handle("query", ({ query }) => Effect.andThen(authorize(query.team_nanoid, "payments.read"), pending))
    .handle("create", ({ payload }) => Effect.andThen(authorize(payload.from, "payments.create"), pending))
    .handle("execute", ({ payload }) => Effect.andThen(authorize(payload.from, "payments.execute"), pending))
    .handle("instant", ({ payload }) => Effect.andThen(authorize(payload.from, "payments.create"), pending))
)

/** Invites: 501 after the permission check. */
export const PendingInviteHandlers = HttpApiBuilder.group(Api, "invites", (handlers) =>
  handlers
    .handle("list", ({ query }) => Effect.andThen(authorizeTeam(query.nanoid, "invites.read"), pending))
    .handle("create", ({ payload }) => Effect.andThen(authorize(payload.nanoid, "invites.create"), pending))
    .handle("createManager", ({ payload }) => Effect.andThen(authorize(payload.nanoid, "invites.manager"), pending))
    .handle("executeManager", () => pending)
)

/** Webhooks: 501 (the endpoint names no team until webhook endpoints are stored). */
export const PendingWebhookHandlers = HttpApiBuilder.group(Api, "webhooks", (handlers) =>
  handlers.handle("get", () => pending).handle("test", () => pending)
)

/** Balance: 501 after the permission check. */
export const PendingBalanceHandlers = HttpApiBuilder.group(Api, "balance", (handlers) =>
  handlers.handle("get", ({ query }) => Effect.andThen(authorizeTeam(query.nanoid, "balance.read"), pending))
)
