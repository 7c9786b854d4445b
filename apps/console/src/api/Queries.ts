/**
 * The console's reads, each a TanStack Query over the client: cached by key, fetched again when a page asks, and
 * polled while something is in flight, so a state moving on the chain shows without a reload.
 */
import { keepPreviousData, useQuery } from "@tanstack/react-query"
import { useClient } from "../session/Session.tsx"
import type { Delivery, PaymentItem, PaymentState } from "./Types.ts"

/** How often an answer with something still moving is asked for again. */
export const livePollMillis = 1500

/** The keys of the cache, by resource: a write invalidates the resource it changed. */
export const keys = {
  teams: ["teams"] as const,
  team: (team: string) => ["team", team] as const,
  balance: (team: string) => ["balance", team] as const,
  users: (team: string) => ["users", team] as const,
  memberSummary: (team: string, user: string) => ["memberSummary", team, user] as const,
  invites: (team: string) => ["invites", team] as const,
  payments: (team: string) => ["payments", team] as const,
  invoices: (team: string) => ["invoices", team] as const,
  webhooks: (team: string) => ["webhooks", team] as const,
  deliveries: (webhook: string) => ["deliveries", webhook] as const,
  deposits: (team: string) => ["deposits", team] as const,
  settings: (team: string) => ["settings", team] as const,
  memberSettings: (team: string, user: string) => ["memberSettings", team, user] as const,
  schedules: (team: string) => ["schedules", team] as const,
  cashRequirement: (team: string) => ["cashRequirement", team] as const,
  payoutAddress: ["payoutAddress"] as const
}

/** States a payment leaves by itself: it is polled while in one. */
const moving: ReadonlyArray<PaymentState> = ["processing", "scheduled"]
export const isMoving = (item: PaymentItem) => moving.includes(item.payment.state ?? "complete")

export const useTeams = () => {
  const client = useClient()
  return useQuery({ queryKey: keys.teams, queryFn: async () => (await client.teams.listMine()).data.teams })
}

export const useTeam = (team: string) => {
  const client = useClient()
  return useQuery({
    queryKey: keys.team(team),
    queryFn: async () => (await client.teams.get({ params: { team_nanoid: team } })).data
  })
}

export const useBalance = (team: string, enabled = true) => {
  const client = useClient()
  return useQuery({
    queryKey: keys.balance(team),
    enabled,
    queryFn: async () => (await client.balance.get({ query: { nanoid: team } })).data
  })
}

/** The team's balance in dollars' cents (USD), 0 when it holds none. */
export const usdCentsOf = (balance: {
  readonly balances: ReadonlyArray<{ currency: string; balance_cents: number }>
}) => balance.balances.find((entry) => entry.currency === "USD")?.balance_cents ?? 0

export const useUsers = (team: string, enabled = true) => {
  const client = useClient()
  return useQuery({
    queryKey: keys.users(team),
    enabled,
    queryFn: async () => (await client.teams.users({ params: { team_nanoid: team }, query: {} })).data.users
  })
}

export const useInvites = (team: string, enabled = true) => {
  const client = useClient()
  return useQuery({
    queryKey: keys.invites(team),
    enabled,
    queryFn: async () => (await client.invites.list({ query: { nanoid: team } })).data
  })
}

/** The payments query's filters, as the URL holds them. */
export interface PaymentFilters {
  readonly state?: string | undefined
  readonly query_type?: string | undefined
  readonly recipient?: string | undefined
  readonly start_date?: string | undefined
  readonly end_date?: string | undefined
}

/** A page of the team's payments (newest first), polled while one of them is moving. */
export const usePayments = (team: string, filters: PaymentFilters, limit = 50, enabled = true) => {
  const client = useClient()
  const query = Object.fromEntries(Object.entries(filters).filter(([, value]) => value !== undefined && value !== ""))
  return useQuery({
    queryKey: [...keys.payments(team), query, limit],
    enabled,
    placeholderData: keepPreviousData,
    queryFn: async () => (await client.payments.query({ query: { team_nanoid: team, ...query, limit } })).data,
    refetchInterval: (current) => (current.state.data?.items.some(isMoving) === true ? livePollMillis : false)
  })
}

export const useWebhooks = (team: string, enabled = true) => {
  const client = useClient()
  return useQuery({
    queryKey: keys.webhooks(team),
    enabled,
    queryFn: async () => (await client.webhooks.list({ query: { team_nanoid: team } })).data.items
  })
}

/** An endpoint's deliveries, newest first, polled while one is pending. */
export const useDeliveries = (webhook: string, status: "pending" | "succeeded" | "failed" | undefined) => {
  const client = useClient()
  return useQuery({
    queryKey: [...keys.deliveries(webhook), status ?? "all"],
    queryFn: async () =>
      (
        await client.webhooks.deliveries({
          params: { webhook_nanoid: webhook },
          query: { limit: 50, ...(status === undefined ? {} : { status }) }
        })
      ).data,
    refetchInterval: (current) =>
      current.state.data?.items.some((delivery: Delivery) => delivery.status === "pending") === true
        ? livePollMillis
        : false
  })
}

export const useDeposits = (team: string, enabled = true) => {
  const client = useClient()
  return useQuery({
    queryKey: keys.deposits(team),
    enabled,
    queryFn: async () => (await client.deposits.list({ query: { team_nanoid: team, limit: 50 } })).data
  })
}

/** The team's pay schedules, newest first, polled while one is active (its next instalment may be paid meanwhile). */
export const useSchedules = (team: string, enabled = true) => {
  const client = useClient()
  return useQuery({
    queryKey: keys.schedules(team),
    enabled,
    queryFn: async () => (await client.schedules.list({ query: { team_nanoid: team } })).data.items,
    refetchInterval: (current) =>
      current.state.data?.some((schedule) => schedule.state === "active") === true ? livePollMillis * 4 : false
  })
}

/** The team's cash requirement: its obligations within its horizon against its balance. */
export const useCashRequirement = (team: string, enabled = true) => {
  const client = useClient()
  return useQuery({
    queryKey: keys.cashRequirement(team),
    enabled,
    queryFn: async () => (await client.schedules.cashRequirement({ query: { team_nanoid: team } })).data
  })
}

/** The team's invoices (a member: their own), newest first, of one status if given. */
export const useInvoices = (team: string, status: string | undefined, enabled = true) => {
  const client = useClient()
  return useQuery({
    queryKey: [...keys.invoices(team), status ?? "all"],
    enabled,
    queryFn: async () =>
      (
        await client.invoices.list({
          query: { team_nanoid: team, limit: 100, ...(status === undefined ? {} : { status: status as never }) }
        })
      ).data
  })
}

/** One invoice, read again every moment while `settling` (a payment of it sent) until it shows paid. */
export const useInvoice = (team: string, invoice: string, settling = false) => {
  const client = useClient()
  return useQuery({
    queryKey: [...keys.invoices(team), "one", invoice],
    queryFn: async () => (await client.invoices.get({ params: { invoice_nanoid: invoice } })).data,
    refetchInterval: (current) => (settling && current.state.data?.invoice_status !== "paid" ? livePollMillis : false)
  })
}
