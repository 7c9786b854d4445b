/**
 * What the API answers, as the client types it: the console reads these shapes, so a change of the contract shows
 * here at compile time.
 */
import type { SvcClient } from "@svc/client"

type Answer<F> = F extends (...args: never) => Promise<infer A> ? A : never
type Data<F> = Answer<F> extends { readonly data: infer D } ? D : never

export type TeamItem = Data<SvcClient["teams"]["listMine"]>["teams"][number]
export type TeamUser = Data<SvcClient["teams"]["users"]>["users"][number]
export type MemberSummary = Data<SvcClient["teams"]["memberSummary"]>
export type TeamSettings = Data<SvcClient["teams"]["getSettings"]>
export type MemberSettings = Data<SvcClient["teams"]["getMemberSettings"]>
export type PaymentItem = Data<SvcClient["payments"]["query"]>["items"][number]
export type Balance = Data<SvcClient["balance"]["get"]>
export type Invite = Data<SvcClient["invites"]["list"]>[number]
export type WebhookEndpoint = Data<SvcClient["webhooks"]["list"]>["items"][number]
export type Delivery = Data<SvcClient["webhooks"]["deliveries"]>["items"][number]
export type Deposit = Data<SvcClient["deposits"]["list"]>["items"][number]
export type PaymentState = NonNullable<PaymentItem["payment"]["state"]>
/** A team role (`team_admin`, ...). */
export type Role = "team_admin" | "team_finance_admin" | "team_viewer" | "team_employee" | "team_contractor"
