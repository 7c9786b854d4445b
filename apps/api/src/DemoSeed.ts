/**
 * The demo of `npm start` (DESIGN §4): a company, a team, its admin (a test wallet whose key is printed, in embedded
 * mode only) and two payable members. With an embedded chain the team also gets its svc account (owned by the admin),
 * funded with test USDC when the account is new on the chain.
 *
 * The demo is planned once (ids and keys, kept in the data directory) and seeded from that plan: each step inserts
 * only what is missing, so a start that died half-way, or any later start, ends with the same single demo.
 */
import { CompanyRepository, newCompany } from "@svc/domain/company"
import { IdGenerator, type TeamId } from "@svc/domain/Ids"
import { MembershipRepository, type Role } from "@svc/domain/membership"
import { TeamRepository } from "@svc/domain/team"
import { emptyPostalAddress, newUser, UserRepository } from "@svc/domain/user"
import { Console, DateTime, Effect, Option } from "effect"
import type { Address } from "viem"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import type { DemoPlan } from "./EmbeddedData.ts"

/** The people of the demo team, in the order of the plan's keys (the admin first). */
const people: ReadonlyArray<{ email: string; first: string; last: string; role: Role }> = [
  { email: "admin@demo.example", first: "Ada", last: "Admin", role: "team_admin" },
  { email: "erin@demo.example", first: "Erin", last: "Employee", role: "team_employee" },
  { email: "carl@demo.example", first: "Carl", last: "Contractor", role: "team_contractor" }
]

/** A new demo: fresh ids and test keys. */
export const planDemo = Effect.gen(function* () {
  const ids = yield* IdGenerator
  return {
    companyId: yield* ids.make("company"),
    teamId: yield* ids.make("team"),
    adminKey: generatePrivateKey(),
    memberKeys: people.slice(1).map(() => generatePrivateKey())
  } satisfies DemoPlan
})

/** What the demo is seeded from, and how it is printed. */
export interface SeedDemoOptions {
  readonly plan: DemoPlan
  readonly baseUrl: string
  /**
   * Gives the team its account on the chain (funding it when the account is new there); absent without a chain.
   */
  readonly fund?: ((owner: Address, team: TeamId) => Effect.Effect<{ account: Address; usdc: bigint }>) | undefined
  /** The one command that sends test USDC to an account (the embedded chain's), printed for the demo team's. */
  readonly sendUsdcCommand?: ((account: Address) => string) | undefined
  /** The chain's RPC URL and id, printed so a browser wallet can be pointed at it. */
  readonly chain?: { readonly rpcUrl: string; readonly chainId: number } | undefined
  /** Where the demo's summary goes (default the console; a log line with `LOG_FORMAT=json`). */
  readonly print?: ((text: string) => Effect.Effect<void>) | undefined
}

/** Seeds what of `plan` is missing and prints how to use the demo. */
export const seedDemo = Effect.fn("DemoSeed.seedDemo")(function* (options: SeedDemoOptions) {
  const { plan } = options
  const ids = yield* IdGenerator
  const companies = yield* CompanyRepository
  const teams = yield* TeamRepository
  const users = yield* UserRepository
  const memberships = yield* MembershipRepository
  const now = DateTime.formatIso(yield* DateTime.now)

  if (Option.isNone(yield* companies.findById(plan.companyId))) {
    yield* companies.insert(
      newCompany({
        nanoid: plan.companyId,
        name: "Demo Company",
        website: "https://example.com",
        address: { ...emptyPostalAddress, country: "US", timezone: "UTC" },
        admin_contact: { fullname: "Demo Admin", phone: "", email: "admin@demo.example" },
        created_at: now
      })
    )
  }
  const admin = privateKeyToAccount(plan.adminKey)
  const funded = options.fund === undefined ? undefined : yield* options.fund(admin.address, plan.teamId)
  if (Option.isNone(yield* teams.findById(plan.teamId))) {
    yield* teams.insert({
      nanoid: plan.teamId,
      company_nanoid: plan.companyId,
      name: "Demo Team",
      description: "Seeded by npm start",
      avatar: "",
      svc_account: funded?.account ?? "",
      status: "active",
      created_at: now,
      updated_at: now
    })
  }

  const wallets = [plan.adminKey, ...plan.memberKeys].map((key) => privateKeyToAccount(key).address)
  for (const [index, person] of people.entries()) {
    const wallet = wallets[index] as Address
    const existing = yield* users.findByWallet(wallet)
    const user = Option.isSome(existing)
      ? existing.value
      : newUser({
          nanoid: yield* ids.make("user"),
          wallet,
          email: person.email,
          first_name: person.first,
          last_name: person.last,
          created_at: now
        })
    if (Option.isNone(existing)) yield* users.insert(user).pipe(Effect.orDie)
    if (Option.isNone(yield* memberships.find(plan.teamId, user.nanoid))) {
      yield* memberships
        .insert({
          nanoid: yield* ids.make("membership"),
          team_nanoid: plan.teamId,
          user_nanoid: user.nanoid,
          role: person.role,
          email: person.email,
          created_at: now
        })
        .pipe(Effect.orDie)
    }
  }

  yield* (options.print ?? Console.log)(summaryOf(options, funded, admin.address))
  return { companyId: plan.companyId, teamId: plan.teamId, adminAddress: admin.address, adminKey: plan.adminKey }
})

/** What a start prints of the demo: where the API, its docs and the chain are, the demo's ids and its admin's key. */
const summaryOf = (
  options: SeedDemoOptions,
  funded: { readonly account: Address; readonly usdc: bigint } | undefined,
  adminAddress: Address
) => {
  const { plan } = options
  return [
    "",
    "svc is running on the embedded defaults (SQLite + anvil, kept in the data directory).",
    `  API:               ${options.baseUrl}`,
    `  Console:           ${options.baseUrl}/console  (sign in with a browser wallet holding the demo admin key)`,
    `  Docs:              ${options.baseUrl}/docs`,
    `  OpenAPI:           ${options.baseUrl}/openapi.json`,
    ...(options.chain === undefined
      ? []
      : [
          `  Chain:             ${options.chain.rpcUrl} (chain id ${options.chain.chainId}; a browser wallet takes it as a custom network)`
        ]),
    `  Demo company:      ${plan.companyId}`,
    `  Demo team:         ${plan.teamId}`,
    funded === undefined
      ? "  Demo team account: (no chain: not deployed)"
      : `  Demo team account: ${funded.account}${funded.usdc > 0n ? ` (funded with ${funded.usdc / 10n ** 6n} test USDC)` : ""}`,
    ...(funded === undefined || options.sendUsdcCommand === undefined
      ? []
      : [`  Send it 250 test USDC (a deposit): ${options.sendUsdcCommand(funded.account)}`]),
    `  Demo admin wallet: ${adminAddress}`,
    `  Demo admin key:    ${plan.adminKey}  (a test key, printed in embedded mode only)`,
    ""
  ].join("\n")
}
