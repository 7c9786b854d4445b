/** GET /v2/invoices/{iv}/pdf: the invoice as a PDF, for whoever may read it. */
import { Effect, Option } from "effect"
import { CompanyRepository } from "../company/CompanyRepository.ts"
import type { InvoiceId } from "../Ids.ts"
import type { Team } from "../team/Team.ts"
import type { Caller } from "../user/Caller.ts"
import { displayNameOf, type User } from "../user/User.ts"
import { UserRepository } from "../user/UserRepository.ts"
import { type InvoiceDocument, type InvoiceParty, InvoiceRenderer, invoiceLinesOf } from "./InvoiceDocument.ts"
import { invoiceFor } from "./InvoiceSteps.ts"

const addressLines = (address: User["address"]): ReadonlyArray<string> =>
  [
    address.line_1,
    address.line_2,
    [address.zip_code, address.city].filter(Boolean).join(" "),
    [address.state, address.country].filter(Boolean).join(", ")
  ].filter((line) => line !== "")

/** The member who billed: their name (or their id), address, e-mail and wallet. */
const memberParty = (id: string, user: User | undefined): InvoiceParty => ({
  name: (user === undefined ? "" : displayNameOf(user)) || id,
  nanoid: id,
  lines: user === undefined ? [] : [...addressLines(user.address), user.email, `Wallet ${user.wallet}`].filter(Boolean)
})

/** The team billed, with its company's name and address, and the team's svc account. */
const teamParty = Effect.fn("Invoices.teamParty")(function* (team: Team) {
  const company = Option.getOrUndefined(yield* CompanyRepository.use((c) => c.findById(team.company_nanoid)))
  return {
    name: company === undefined ? team.name : `${team.name}, ${company.name}`,
    nanoid: team.nanoid,
    lines: [
      ...(company === undefined ? [] : addressLines(company.address)),
      ...(team.svc_account === "" ? [] : [`svc account ${team.svc_account}`])
    ]
  } satisfies InvoiceParty
})

/** The invoice's document, rendered as a PDF. */
export const renderInvoice = Effect.fn("Invoices.pdf")(function* (caller: Caller, id: InvoiceId) {
  const { invoice, team } = yield* invoiceFor(caller, id, "invoices.read")
  const member = Option.getOrUndefined(yield* UserRepository.use((users) => users.findById(invoice.recipient_nanoid)))
  const document: InvoiceDocument = {
    invoice,
    from: memberParty(invoice.recipient_nanoid, member),
    to: yield* teamParty(team),
    lines: invoiceLinesOf(invoice)
  }
  return yield* InvoiceRenderer.use((renderer) => renderer.pdf(document))
})
