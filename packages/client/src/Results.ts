/**
 * Names for what the operations answer most often, so that an integrator's own code can name them; any other answer
 * is `SvcResult<resource, operation>`.
 */
import type { SvcResult } from "./Operations.ts"

/** A team, with its administrators and balance (`teams.get`). */
export type Team = SvcResult<"teams", "get">["data"]
/** A team the caller belongs to, with the caller's role (`teams.listMine`). */
export type MyTeam = SvcResult<"teams", "listMine">["data"]["teams"][number]
/** A member of a team, and whether they can be paid (`teams.users`). */
export type TeamUser = SvcResult<"teams", "users">["data"]["users"][number]
/** A payment, as the payments query lists it (`payments.query`). */
export type Payment = SvcResult<"payments", "query">["data"]["items"][number]
/** Typed data the API issued for the account to sign (`payments.create`). */
export type TypedDataBundle = SvcResult<"payments", "create">["data"]
/** An invite, as the invites list shows it (`invites.list`). */
export type Invite = SvcResult<"invites", "list">["data"][number]
/** An invoice a member billed their team (`invoices.get`, `invoices.list`, `invoices.create`). */
export type Invoice = SvcResult<"invoices", "get">["data"]
/** A webhook endpoint (`webhooks.get`, `webhooks.list`). */
export type WebhookEndpoint = SvcResult<"webhooks", "list">["data"]["items"][number]
/**
 * One delivery of an event to an endpoint, with its attempts (`webhooks.deliveries`): each one's status code, time,
 * error, and the start of the receiver's answer (`response_body`, `response_body_truncated`).
 */
export type WebhookDelivery = SvcResult<"webhooks", "deliveries">["data"]["items"][number]
/** USDC that reached a team's account (`deposits.list`). */
export type Deposit = SvcResult<"deposits", "list">["data"]["items"][number]
/** The balances of a team's account (`balance.get`). */
export type Balance = SvcResult<"balance", "get">["data"]
