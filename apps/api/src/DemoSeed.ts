/**
 * The demo of `npm start` (DESIGN §4): a company, a team, its admin (a fresh test wallet whose key is printed, in
 * embedded mode only) and two payable members. With an embedded chain the team also gets its svc account (owned by
 * the admin) funded with test USDC.
 */
import { CompanyRepository } from "@svc/domain/company"
import { IdGenerator, type TeamId } from "@svc/domain/Ids"
import { MembershipRepository, type Role } from "@svc/domain/membership"
import { TeamRepository } from "@svc/domain/team"
import { emptyAddress, newUser, UserRepository } from "@svc/domain/user"
import { Console, DateTime, Effect } from "effect"
import type { Address } from "viem"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"

/** Seeds the demo and prints how to use it. */
export const seedDemo = Effect.fn("DemoSeed.seedDemo")(function* (options: {
  readonly baseUrl: string
  /** Deploys and funds the team's account; absent without a chain. */
  readonly fund?: ((owner: Address, team: TeamId) => Effect.Effect<{ account: Address; usdc: bigint }>) | undefined
}) {
  const ids = yield* IdGenerator
  const companies = yield* CompanyRepository
  const teams = yield* TeamRepository
  const users = yield* UserRepository
  const memberships = yield* MembershipRepository
  const now = DateTime.formatIso(yield* DateTime.now)

  const companyId = yield* ids.make("company")
  yield* companies.insert({
    nanoid: companyId,
    avatar: "",
    name: "Demo Company",
    website: "https://example.com",
    blockchain_address: "",
    incorporation_country: "US",
    incorporation_type: "sole_proprietorship",
    address: { ...emptyAddress, country: "US", timezone: "UTC" },
    admin_contact: { fullname: "Demo Admin", phone: "", email: "admin@demo.example" },
    private_data: { tax_id: "" },
    created_at: now
  })
  const teamId = yield* ids.make("team")
  const adminKey = generatePrivateKey()
  const admin = privateKeyToAccount(adminKey)
  const funded = options.fund === undefined ? undefined : yield* options.fund(admin.address, teamId)
  yield* teams.insert({
    nanoid: teamId,
    company_nanoid: companyId,
    name: "Demo Team",
    description: "Seeded by npm start",
    avatar: "",
    svc_account: funded?.account ?? "",
    status: "active",
    created_at: now,
    updated_at: now
  })

  const people: ReadonlyArray<{ wallet: string; email: string; first: string; last: string; role: Role }> = [
    { wallet: admin.address, email: "admin@demo.example", first: "Ada", last: "Admin", role: "team_admin" },
    {
      wallet: privateKeyToAccount(generatePrivateKey()).address,
      email: "erin@demo.example",
      first: "Erin",
      last: "Employee",
      role: "team_employee"
    },
    {
      wallet: privateKeyToAccount(generatePrivateKey()).address,
      email: "carl@demo.example",
      first: "Carl",
      last: "Contractor",
      role: "team_contractor"
    }
  ]
  for (const person of people) {
    const user = newUser({
      nanoid: yield* ids.make("user"),
      wallet: person.wallet,
      email: person.email,
      first_name: person.first,
      last_name: person.last,
      created_at: now
    })
    yield* users.insert(user).pipe(Effect.orDie)
    yield* memberships
      .insert({
        nanoid: yield* ids.make("membership"),
        team_nanoid: teamId,
        user_nanoid: user.nanoid,
        role: person.role,
        email: person.email,
        created_at: now
      })
      .pipe(Effect.orDie)
  }

  yield* Console.log(
    [
      "",
      "svc is running on the embedded defaults (jongodb + anvil).",
      `  API:               ${options.baseUrl}`,
      `  Docs:              ${options.baseUrl}/docs`,
      `  OpenAPI:           ${options.baseUrl}/openapi.json`,
      `  Demo company:      ${companyId}`,
      `  Demo team:         ${teamId}`,
      funded === undefined
        ? "  Demo team account: (no chain: not deployed)"
        : `  Demo team account: ${funded.account} (funded with ${funded.usdc / 10n ** 6n} test USDC)`,
      `  Demo admin wallet: ${admin.address}`,
      `  Demo admin key:    ${adminKey}  (a throwaway test key, printed in embedded mode only)`,
      ""
    ].join("\n")
  )
  return { companyId, teamId, adminAddress: admin.address, adminKey }
})
