/**
 * The chain for the domain's use-case tests that need one: the adapters' embedded chain on the test run's anvil (the
 * real contracts), and a team whose admin holds a private key, with its account created on chain.
 */
import { EmbeddedChain } from "@svc/adapters/evm"
import { Effect, Layer } from "effect"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import { inject } from "vitest"
import { ChainGateway } from "../src/chain/ChainGateway.ts"
import { svcAccountSaltOf } from "../src/chain/SvcAccountSalt.ts"
import { TestChain } from "../src/chain/TestChain.ts"
import { type Address, walletAddressOf } from "../src/Evm.ts"
import { IdGenerator } from "../src/Ids.ts"
import { MembershipRepository } from "../src/membership/index.ts"
import { issuePayments } from "../src/payment/IssuePayments.ts"
import { SignatureVerifier } from "../src/signature/SignatureVerifier.ts"
import { TeamRepository } from "../src/team/index.ts"
import { type Caller, newUser, UserRepository } from "../src/user/index.ts"
import { paymentsBody } from "./PaymentKit.ts"
import { seedTeam, teamUseCases } from "./UseCaseKit.ts"

declare module "vitest" {
  /** What the run's global setup provides (packages/adapters/test/vitest.globalSetup.ts). */
  export interface ProvidedContext {
    readonly rpcUrl: string
  }
}

/** The embedded chain on the run's anvil: the `ChainGateway`, and `EmbeddedChain` to mint test USDC. */
export const chainLayer = EmbeddedChain.layer({ rpcUrl: inject("rpcUrl"), chainId: 42161 }).pipe(Layer.orDie)

/**
 * The team use cases and signatures checked by recovery, fresh for each test; the chain (`chainLayer`, deployed once
 * per file) comes from the file's layer.
 */
export const onChainUseCases = SignatureVerifier.layer.pipe(Layer.provideMerge(teamUseCases))

/**
 * The seeded team (`seedTeam`) with a second admin, `signingAdmin`, whose private key is `key`, and the team's account
 * created on the chain in context, owned by that admin and given 1,000 USDC by `fund`.
 */
export const seedTeamWithAccount = <E, R>(fund: (account: Address, amount: bigint) => Effect.Effect<unknown, E, R>) =>
  Effect.gen(function* () {
    const seeded = yield* seedTeam
    const key = generatePrivateKey()
    const signer = privateKeyToAccount(key)
    const admin: Caller = {
      nanoid: yield* IdGenerator.use((ids) => ids.make("user")),
      wallet: walletAddressOf(signer.address)
    }
    const now = "2026-01-01T00:00:00.000Z"
    yield* UserRepository.use((u) => u.insert(newUser({ ...admin, created_at: now }))).pipe(Effect.orDie)
    const membership = yield* IdGenerator.use((ids) => ids.make("membership"))
    yield* MembershipRepository.use((m) =>
      m.insert({
        nanoid: membership,
        team_nanoid: seeded.team,
        user_nanoid: admin.nanoid,
        role: "team_admin",
        email: "",
        created_at: now
      })
    ).pipe(Effect.orDie)
    const { account } = yield* ChainGateway.use((chain) =>
      chain.createAccount(signer.address, svcAccountSaltOf(seeded.team))
    ).pipe(Effect.orDie)
    yield* TeamRepository.use((t) => t.update(seeded.team, { svc_account: account }))
    yield* fund(account, 1_000n * 10n ** 6n)
    return { ...seeded, signingAdmin: admin, key, account }
  })

/** `seedTeamWithAccount` on the embedded chain: the account's USDC minted. */
export const seedChainTeam = seedTeamWithAccount((account, amount) =>
  EmbeddedChain.use((chain) => chain.mint(account, amount)).pipe(Effect.orDie)
)

/**
 * What use-case tests of executions, recovery, removals and deposits run on without a node (decision 0095): the
 * in-memory chain of `ChainGateway.layerTest` and its controls (`TestChain`), fresh for each test, with the team use
 * cases and signatures; time is the test's `TestClock`.
 */
export const testChainUseCases = onChainUseCases.pipe(Layer.provideMerge(ChainGateway.layerTest()))

/** `seedTeamWithAccount` on the test chain: the account funded at once. */
export const seedTestChainTeam = seedTeamWithAccount((account, amount) =>
  TestChain.use((chain) => chain.fund(account, amount))
)

/** The seeded team on the test chain, and a finance admin with the role in the team and on its account. */
export const withTestChainFinanceAdmin = Effect.gen(function* () {
  const seeded = yield* seedTestChainTeam
  const member = seeded.outsider
  const nanoid = yield* IdGenerator.use((ids) => ids.make("membership"))
  yield* MembershipRepository.use((m) =>
    m.insert({
      nanoid,
      team_nanoid: seeded.team,
      user_nanoid: member.nanoid,
      role: "team_finance_admin",
      email: "",
      created_at: "2026-01-01T00:00:00.000Z"
    })
  ).pipe(Effect.orDie)
  yield* TestChain.use((chain) => chain.grant(seeded.account, "team_finance_admin", member.wallet))
  // What POST /v2/payments asks of the member.
  const issue = issuePayments(member, paymentsBody(seeded.team, [seeded.employee.nanoid], 100))
  return { ...seeded, member, issue }
})
