/** A team with members who bill it, and invoice bodies as clients send them, for the invoice use-case tests. */
import { PdfInvoiceRenderer } from "@svc/adapters/pdf"
import { Effect, Layer, Schema } from "effect"
import { walletAddressOf } from "../src/Evm.ts"
import { IdGenerator, type TeamId } from "../src/Ids.ts"
import { CreateInvoiceRequest } from "../src/invoice/InvoiceRequests.ts"
import { MembershipRepository, type Role } from "../src/membership/index.ts"
import { type Caller, newUser, UserRepository } from "../src/user/index.ts"
import { seedTeam, teamUseCases } from "./UseCaseKit.ts"

/** The team use cases with the PDF renderer. */
export const invoiceUseCases = Layer.mergeAll(teamUseCases, PdfInvoiceRenderer.layer)

/** A new user with wallet `0x…n`, member of `team` with `role`. */
export const memberOf = (team: TeamId, n: number, role: Role, name = "") =>
  Effect.gen(function* () {
    const ids = yield* IdGenerator
    const nanoid = yield* ids.make("user")
    const wallet = walletAddressOf(`0x${n.toString(16).padStart(40, "0")}`)
    const [first_name = "", last_name = ""] = name.split(" ")
    const at = "2026-01-01T00:00:00.000Z"
    yield* UserRepository.use((u) => u.insert(newUser({ nanoid, wallet, created_at: at, first_name, last_name })))
    const membership = yield* ids.make("membership")
    yield* MembershipRepository.use((m) =>
      m.insert({ nanoid: membership, team_nanoid: team, user_nanoid: nanoid, role, email: "", created_at: at })
    )
    return { nanoid, wallet } satisfies Caller
  }).pipe(Effect.orDie)

/** The seeded team (`seedTeam`), with a contractor, a finance admin and a viewer. */
export const seedInvoicing = Effect.gen(function* () {
  const seeded = yield* seedTeam
  return {
    ...seeded,
    contractor: yield* memberOf(seeded.team, 101, "team_contractor", "Ada Lovelace"),
    finance: yield* memberOf(seeded.team, 102, "team_finance_admin"),
    viewer: yield* memberOf(seeded.team, 103, "team_viewer")
  }
})

/** A flat invoice body of `cents`. */
export const flatInvoice = (team: TeamId, number: string, cents: number) =>
  Schema.decodeUnknownSync(CreateInvoiceRequest)({
    team_nanoid: team,
    invoice_number: number,
    amount_cents: cents,
    invoice_description: `Invoice ${number}`
  })

/** A time-entry invoice body: 7 h 30 min and 2 h 15 min at 80.00 USD an hour (780.00 USD). */
export const timeInvoice = (team: TeamId, number: string, extra: Record<string, unknown> = {}) =>
  Schema.decodeUnknownSync(CreateInvoiceRequest)({
    team_nanoid: team,
    invoice_number: number,
    type: "time_entry",
    hourly_rate_usd_cents: 8000,
    time_entries: [
      { date: "2026-01-05", hours: 7, minutes: 30, notes: "Schema design" },
      { date: "2026-01-06", hours: 2, minutes: 15, notes: "Review" }
    ],
    due_date: "2026-02-01",
    ...extra
  })
