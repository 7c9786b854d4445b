/**
 * Records the contract suites store: well-formed, with ids made from numbers so each test can make its own.
 */
import type { Company } from "@svc/domain/company"
import type { Email } from "@svc/domain/Email"
import { type IssuedTypedData, type PaymentsTypedDataBundle, paymentsTypedData } from "@svc/domain/eip712"
import type { DomainEvent } from "@svc/domain/event"
import type {
  CompanyId,
  EventId,
  InviteId,
  InvoiceId,
  MembershipId,
  PaymentGroupId,
  PaymentId,
  TeamId,
  UserId
} from "@svc/domain/Ids"
import type { Invite } from "@svc/domain/invite"
import type { Invoice } from "@svc/domain/invoice"
import type { Mail } from "@svc/domain/mail"
import type { Membership, Role } from "@svc/domain/membership"
import { invoiceOf, type Payment } from "@svc/domain/payment"
import type { Team } from "@svc/domain/team"

const digits = (n: number) => String(n).padStart(12, "0")

/** The nth id of a kind. */
export const companyId = (n: number) => `co-${digits(n)}` as CompanyId
export const teamId = (n: number) => `te-${digits(n)}` as TeamId
export const userId = (n: number) => `us-${digits(n)}` as UserId
export const membershipId = (n: number) => `re-${digits(n)}` as MembershipId
export const paymentId = (n: number) => `pa-${digits(n)}` as PaymentId
export const eventId = (n: number) => `ev-${digits(n)}` as EventId

/** The nth wallet address, lower case. */
export const wallet = (n: number) => `0x${n.toString(16).padStart(40, "0")}` as `0x${string}`

/** A company. */
export const company = (n: number): Company => ({
  nanoid: companyId(n),
  avatar: "",
  name: `Company ${n}`,
  website: "",
  blockchain_address: "",
  incorporation_country: "US",
  incorporation_type: "sole_proprietorship",
  address: { line_1: "", line_2: "", city: "", state: "", country: "", zip_code: "", timezone: "" },
  admin_contact: { fullname: "", phone: "", email: "" },
  private_data: { tax_id: "" },
  created_at: "2026-01-01T00:00:00.000Z"
})

/** An active team of company `company`. */
export const team = (n: number, company: CompanyId = companyId(1)): Team => ({
  nanoid: teamId(n),
  company_nanoid: company,
  name: `Team ${n}`,
  description: "",
  avatar: "",
  svc_account: "",
  status: "active",
  created_at: "2026-01-01T00:00:00.000Z",
  updated_at: "2026-01-01T00:00:00.000Z"
})

/** Membership `n` of user `user` in team `team`, joined at second `n` of 2026. */
export const membership = (n: number, team: TeamId, user: UserId, role: Role = "team_employee"): Membership => ({
  nanoid: membershipId(n),
  team_nanoid: team,
  user_nanoid: user,
  role,
  email: `U${n}@Example.com`,
  created_at: new Date(Date.UTC(2026, 0, 1) + n * 1000).toISOString()
})

/** Payments typed data with salt `salt` (a decimal string): one payment of 1 USDC, as the service builds it. */
export const bundle = (salt: string): PaymentsTypedDataBundle =>
  paymentsTypedData(
    { chainId: 42161, verifyingContract: `0x${"1".repeat(40)}` },
    { from: `0x${"2".repeat(40)}`, to: `0x${"3".repeat(40)}`, salt, expires: "9999999999" },
    [
      {
        id: `0x${"4".repeat(64)}`,
        groupID: `0x${"5".repeat(64)}`,
        payAtTime: "0",
        validMinutes: "1440",
        payType: "1",
        token: `0x${"6".repeat(40)}`,
        recipient: `0x${"7".repeat(40)}`,
        amount: "1000000",
        data: "0x"
      }
    ]
  )

/** What `issue` stores for `salt`: a batch of one payment. */
export const issued = (salt: string, team: TeamId = teamId(1)): IssuedTypedData => ({
  kind: "batch",
  salt,
  team,
  issuedTo: userId(1),
  signer: `0x${"2".repeat(40)}`,
  bundle: bundle(salt),
  request: {
    body: { from: team, to: [], pay_now: true },
    group_nanoid: "pg-000000000001" as PaymentGroupId,
    account: `0x${"3".repeat(40)}`,
    payments: [
      {
        nanoid: paymentId(1),
        invoice_nanoid: `iv-${digits(1)}` as InvoiceId,
        recipient_nanoid: userId(2),
        amount_cents: 100,
        invoice: invoiceOf("")
      }
    ]
  }
})

/** Payment `n` of salt `salt`, created at second `n % 60` of 2026 unless overridden. */
export const payment = (n: number, overrides: Partial<Payment> = {}): Payment => ({
  nanoid: paymentId(n),
  group_nanoid: "pg-000000000001" as PaymentGroupId,
  invoice_nanoid: `iv-${digits(n)}` as InvoiceId,
  team_nanoid: teamId(1),
  payer_nanoid: userId(1),
  recipient_nanoid: userId(2),
  state: "intent",
  amount_cents: 100,
  currency_symbol: "USD",
  token: `0x${"4".repeat(40)}`,
  token_amount: "1000000",
  token_decimals: 6,
  pay_type: "2",
  pay_at_time: 1000,
  valid_minutes: 1440,
  onchain_id: `0x${"5".repeat(64)}`,
  group_onchain_id: `0x${"6".repeat(64)}`,
  data: "0x",
  salt: "1",
  invoice: {
    invoice_description: "",
    role_description: "",
    services_description: "",
    payment_details: "",
    external_sow_url: "",
    svc_sow: false
  },
  created_at: `2026-01-01T00:00:${String(n % 60).padStart(2, "0")}.000Z`,
  updated_at: "2026-01-01T00:00:00.000Z",
  ...overrides
})

/** Event `n` of team 1. */
export const event = (n: number, type: DomainEvent["event_type"] = "payment.sent"): DomainEvent => ({
  id: eventId(n),
  event_type: type,
  created: 1_700_000_000 + n,
  team_nanoid: teamId(1),
  idempotency_key: `00000000-0000-4000-8000-${digits(n)}`,
  data: { n }
})

/** The nth invite id. */
export const inviteId = (n: number) => `in-${digits(n)}` as InviteId

/** A pending member invite `n` to team 1 by user 1, created at second `n` of 2026, expiring a week later. */
export const invite = (n: number, overrides: Partial<Invite> = {}): Invite => ({
  nanoid: inviteId(n),
  team_nanoid: teamId(1),
  company_nanoid: companyId(1),
  kind: "member",
  role: "team_employee",
  email: `invitee${n}@example.com` as Email,
  invitee_name: "",
  inviter_nanoid: userId(1),
  anonymous: false,
  state: "pending",
  token_hash: `${"ab".repeat(31)}${digits(n).slice(-2)}`,
  expires_at: new Date(Date.UTC(2026, 0, 8) + n * 1000).toISOString(),
  created_at: new Date(Date.UTC(2026, 0, 1) + n * 1000).toISOString(),
  updated_at: new Date(Date.UTC(2026, 0, 1) + n * 1000).toISOString(),
  ...overrides
})

/** Mail `n`: its text holds a secret, as an invite mail's link does. */
export const mail = (n: number): Mail => ({
  id: `00000000-0000-4000-9000-${digits(n)}`,
  to: `invitee${n}@example.com`,
  subject: `Mail ${n}`,
  text: `secret-token-${n}`
})

/** The nth invoice id. */
export const invoiceId = (n: number) => `iv-${digits(n)}` as InvoiceId

/** Invoice `n` of user 2 to team 1, number `2026-<n>`, 100.00 USD, submitted at second `n` of 2026. */
export const invoice = (n: number, overrides: Partial<Invoice> = {}): Invoice => ({
  nanoid: invoiceId(n),
  team_nanoid: teamId(1),
  recipient_nanoid: userId(2),
  invoice_number: `2026-${n}`,
  type: "flat",
  flat_type: "service",
  amount_cents: 10_000,
  currency: "USD",
  invoice_description: `Invoice ${n}`,
  role_description: "",
  time_entries: [],
  hourly_rate_usd_cents: 0,
  due_date: null,
  state: "submitted",
  paid_cents: 0,
  payments: [],
  revision: 0,
  created_at: new Date(Date.UTC(2026, 0, 1) + n * 1000).toISOString(),
  updated_at: new Date(Date.UTC(2026, 0, 1) + n * 1000).toISOString(),
  ...overrides
})
