/**
 * What a person does in the console, as the browser tests say it: by role and accessible name (issue 40: those names
 * are part of the console's contract), never by CSS selector.
 */
import type { Locator, Page } from "playwright-core"

/** Waits until `locator` is visible (15 s at most: a chain is involved). */
export const visible = (locator: Locator, timeout = 15_000) => locator.waitFor({ state: "visible", timeout })

/** Opens the console, connects the page's wallet and signs in; answers once the overview shows. */
export const signIn = async (page: Page, baseUrl: string) => {
  await page.goto(`${baseUrl}/console`)
  await page.getByRole("button", { name: "Connect wallet" }).click()
  await page.getByRole("button", { name: "Sign in" }).click()
  // The console's first page (on a phone, the navigation and "Sign out" are behind the menu).
  await visible(page.getByRole("heading", { level: 1 }).filter({ hasNotText: "Sign in" }))
}

/** Follows a link of the console's navigation, and waits for the page's heading (its name, unless told another). */
export const openPage = async (page: Page, name: string, heading = name) => {
  await page.getByRole("navigation", { name: "Console" }).getByRole("link", { name, exact: true }).click()
  await visible(page.getByRole("heading", { level: 1, name: heading }))
}

/** The names of the navigation's links. */
export const navigationLinks = (page: Page) =>
  page.getByRole("navigation", { name: "Console" }).getByRole("link").allTextContents()

/** Fills the payee row `index` (0-based) of the new payment form. */
export const fillPayee = async (
  page: Page,
  index: number,
  payee: { readonly name: string; readonly email: string; readonly amount: string; readonly description: string }
) => {
  const row = page.getByRole("group", { name: `Payee ${index + 1}` })
  await row.getByLabel("Recipient").selectOption({ label: `${payee.name} (${payee.email})` })
  await row.getByLabel("Amount").fill(payee.amount)
  await row.getByLabel("Description").fill(payee.description)
}
