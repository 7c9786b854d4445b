/**
 * What the API answers, as the client names and types it (`@svc/client`, in plain values): the console reads these
 * shapes, so a change of the contract shows here at compile time.
 */
import type {
  Balance as ClientBalance,
  Deposit as ClientDeposit,
  Invite as ClientInvite,
  Invoice as ClientInvoice,
  TeamUser as ClientTeamUser,
  WebhookEndpoint as ClientWebhookEndpoint,
  MyTeam,
  Payment,
  SvcResult,
  WebhookDelivery
} from "@svc/client"

export type TeamItem = MyTeam
export type TeamUser = ClientTeamUser
export type MemberSummary = SvcResult<"teams", "memberSummary">["data"]
export type TeamSettings = SvcResult<"teams", "getSettings">["data"]
export type MemberSettings = SvcResult<"teams", "getMemberSettings">["data"]
export type PaymentItem = Payment
export type Balance = ClientBalance
export type Invite = ClientInvite
export type WebhookEndpoint = ClientWebhookEndpoint
export type Delivery = WebhookDelivery
export type Deposit = ClientDeposit
export type Invoice = ClientInvoice
export type PaymentState = NonNullable<PaymentItem["payment"]["state"]>
/** A team role (`team_admin`, ...). */
export type Role = "team_admin" | "team_finance_admin" | "team_viewer" | "team_employee" | "team_contractor"
export type PaySchedule = SvcResult<"paySchedules", "list">["data"]["items"][number]
export type CashRequirement = SvcResult<"paySchedules", "cashRequirement">["data"]
