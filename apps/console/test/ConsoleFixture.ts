/**
 * What the console's browser tests share, once per file: the console built from its sources (when they changed), a
 * real API server serving it at `/console` and settling on the run's anvil, one Chromium, and a funded team whose
 * members have the roles the tests sign in with.
 */
import { grantRoleOnChain } from "@svc/api/ChainRoles"
import { addMember, ChainTestServer, fundedTeam, startChainTestServerWith } from "@svc/api/TestServer"
import { ChainGateway } from "@svc/domain/chain"
import type { TeamId } from "@svc/domain/Ids"
import type { Role } from "@svc/domain/membership"
import { Context, Effect, Layer } from "effect"
import type { Browser } from "playwright-core"
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from "viem/accounts"
import { consoleDist, ensureBuilt } from "../scripts/Build.ts"
import { launchBrowser } from "./ConsoleBrowser.ts"

/** A member the tests sign in or pay as. */
export interface Member {
  readonly account: PrivateKeyAccount
  readonly user: string
  readonly name: string
}

/** The team of the tests: its admin and members of every other role, funded with 1,000,000 USDC. */
export interface ConsoleTeam {
  readonly team: TeamId
  readonly account: string
  readonly admin: Member
  readonly finance: Member
  readonly viewer: Member
  /** Payable members, by first name. */
  readonly ada: Member
  readonly grace: Member
  readonly alan: Member
}

const member = (team: TeamId, role: Role, first: string, last: string) =>
  Effect.gen(function* () {
    const account = privateKeyToAccount(generatePrivateKey())
    const email = `${first.toLowerCase()}@example.com`
    const user = yield* addMember(team, account.address, role, email, { first, last })
    return { account, user, name: `${first} ${last}` } satisfies Member
  })

export class ConsoleFixture extends Context.Service<
  ConsoleFixture,
  {
    readonly chain: ChainTestServer["Service"]
    readonly baseUrl: string
    readonly browser: Browser
    readonly team: ConsoleTeam
  }
>()("@svc/console/test/ConsoleFixture") {
  static readonly layer = Layer.effect(
    ConsoleFixture,
    Effect.gen(function* () {
      yield* Effect.promise(() => ensureBuilt())
      const chain = yield* startChainTestServerWith({ console: { directory: consoleDist } })
      const funded = yield* fundedTeam(1_000_000_000_000n).pipe(Effect.provideService(ChainTestServer, chain))
      const team = yield* Effect.gen(function* () {
        const t = funded.team
        return {
          team: t,
          account: funded.account,
          admin: { account: funded.admin, user: "", name: "Admin" },
          finance: yield* member(t, "team_finance_admin", "Frances", "Allen"),
          viewer: yield* member(t, "team_viewer", "Victor", "Vance"),
          ada: yield* member(t, "team_employee", "Ada", "Lovelace"),
          grace: yield* member(t, "team_employee", "Grace", "Hopper"),
          alan: yield* member(t, "team_contractor", "Alan", "Turing")
        } satisfies ConsoleTeam
      }).pipe(Effect.provide(chain.server.context))
      // The finance admin pays on chain as the console's person would: their role is granted on the team's account.
      yield* grantRoleOnChain(funded.account, funded.admin, {
        role: "team_finance_admin",
        wallet: team.finance.account.address,
        salt: team.finance.user
      }).pipe(Effect.provideService(ChainGateway, chain.gateway))
      const browser = yield* Effect.acquireRelease(Effect.promise(launchBrowser), (opened) =>
        Effect.promise(() => opened.close())
      )
      return { chain, baseUrl: chain.server.baseUrl, browser, team }
    })
  )
}
