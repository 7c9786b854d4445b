/**
 * The console's pages, in the order the navigation lists them: the one place a new feature's page is added
 * (apps/console/README.md, "Adding a page"). A page has a URL segment under its team (`/console/te-…/<slug>`), a
 * navigation link whose name is part of the console's contract (the browser tests find it by that name), an icon,
 * who may see it (the domain's permission for what it shows), and its component, which reads the rest of the path
 * (`/payments/pa-…`) for its own detail views.
 */
import type { ReactNode } from "react"
import { DepositsPage } from "../pages/Deposits.tsx"
import { InvoicesPage } from "../pages/Invoices.tsx"
import { MembersPage } from "../pages/Members.tsx"
import { OverviewPage } from "../pages/Overview.tsx"
import { PaymentsPage } from "../pages/Payments.tsx"
import { PaySchedulesPage } from "../pages/PaySchedules.tsx"
import { SettingsPage } from "../pages/Settings.tsx"
import { WebhooksPage } from "../pages/Webhooks.tsx"
import type { IconName } from "../ui/Icons.tsx"
import type { TeamContext } from "./Team.ts"

/** What a page is given: its team, and the path's segments after its slug. */
export interface PageProps {
  readonly team: TeamContext
  readonly rest: ReadonlyArray<string>
}

/** A page of the console. */
export interface ConsolePage {
  /** The URL segment after the team (`""` for the team's overview). */
  readonly slug: string
  /** The navigation link's name. */
  readonly label: string
  readonly icon: IconName
  /** Whether the member sees the page (in the navigation, and when opened by its URL). */
  readonly visible: (team: TeamContext) => boolean
  readonly Component: (props: PageProps) => ReactNode
}

export const consolePages: ReadonlyArray<ConsolePage> = [
  { slug: "", label: "Overview", icon: "overview", visible: () => true, Component: OverviewPage },
  {
    slug: "members",
    label: "Members",
    icon: "members",
    visible: (team) => team.may("team.users.list"),
    Component: MembersPage
  },
  {
    slug: "payments",
    label: "Payments",
    icon: "payments",
    visible: (team) => team.may("payments.read"),
    Component: PaymentsPage
  },
  {
    slug: "invoices",
    label: "Invoices",
    icon: "invoices",
    // Managers read the team's; an employee or contractor, their own.
    visible: (team) => team.may("invoices.read", true),
    Component: InvoicesPage
  },
  {
    slug: "schedules",
    label: "Pay schedules",
    icon: "schedules",
    visible: (team) => team.may("payments.read"),
    Component: PaySchedulesPage
  },
  {
    slug: "webhooks",
    label: "Webhooks",
    icon: "webhooks",
    visible: (team) => team.may("webhooks.manage"),
    Component: WebhooksPage
  },
  {
    slug: "deposits",
    label: "Deposits",
    icon: "deposits",
    visible: (team) => team.may("balance.read"),
    Component: DepositsPage
  },
  { slug: "settings", label: "Settings", icon: "settings", visible: () => true, Component: SettingsPage }
]

/** The path of a team's page: `/te-…/payments`, `/te-…` for the overview, with `rest` and a search appended. */
export const pagePath = (team: string, slug: string, ...rest: ReadonlyArray<string>) =>
  `/${[team, slug, ...rest]
    .filter((segment) => segment !== "")
    .map(encodeURIComponent)
    .join("/")}`
