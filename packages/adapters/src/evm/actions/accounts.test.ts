/**
 * The account actions on the run's anvil: addresses computed as the forwarder computes them, creation once, and the
 * revocation of a removed member's authority (decision 0020).
 */
import { assert, describe, layer } from "@effect/vitest"
import { svcAccountAbi, svcAccountForwarderAbi } from "@svc/contracts"
import { Effect } from "effect"
import { type BaseError, ContractFunctionRevertedError } from "viem"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import {
  balances,
  bytes32,
  entry,
  freshTeam,
  GatewayFixture,
  newWallet,
  signedPayments,
  signedRoles
} from "../../../test/GatewayTestKit.ts"
import { accountAddresses, createAccount, ownerOf, revokeAuthority } from "./accounts.ts"
import { executePayments, executeRoles } from "./executeRequests.ts"
import { hasRole } from "./reads.ts"

layer(GatewayFixture.layer(), { timeout: 120_000, excludeTestServices: true })("account actions on anvil", (it) => {
  it.effect("creating an account twice returns the same account without a second transaction", () =>
    Effect.gen(function* () {
      const { gateway, client, suite } = yield* GatewayFixture
      const owner = newWallet()
      const salt = bytes32()
      const predicted = yield* accountAddresses(gateway)(owner, salt)
      const forwarderSays = yield* Effect.promise(() =>
        client.readContract({
          address: suite.forwarder,
          abi: svcAccountForwarderAbi,
          functionName: "accountAddress",
          args: [owner, salt]
        })
      )
      assert.strictEqual(predicted, forwarderSays)
      const first = yield* createAccount(gateway, predicted, owner, salt)
      const second = yield* createAccount(gateway, predicted, owner, salt)
      assert.strictEqual(first.account, predicted)
      assert.notStrictEqual(yield* Effect.promise(() => client.getCode({ address: predicted })), undefined)
      assert.isDefined(first.transactionHash)
      assert.deepStrictEqual(second, { account: first.account, owner })
      const unknown = yield* Effect.flip(
        executePayments(gateway, yield* signedPayments(generatePrivateKey(), newWallet(), [entry(owner, owner, 1n)]))
      )
      assert.strictEqual(unknown._tag, "UnknownAccount")
    })
  )

  describe("revocation (decision 0020)", () => {
    it.effect("revoking ends granted roles and the ownership: the wallets can no longer pay or grant", () =>
      Effect.gen(function* () {
        const { gateway, suite } = yield* GatewayFixture
        const { account, ownerKey } = yield* freshTeam()
        const owner = privateKeyToAccount(ownerKey).address
        const adminKey = generatePrivateKey()
        const admin = privateKeyToAccount(adminKey).address
        const viewer = newWallet()
        yield* executeRoles(
          gateway,
          yield* signedRoles(ownerKey, account, [
            { role: "team_admin", account: admin },
            { role: "team_finance_admin", account: admin },
            { role: "team_viewer", account: viewer }
          ])
        )
        assert.strictEqual(yield* ownerOf(gateway, account), owner)
        const revocation = yield* revokeAuthority(gateway, account, [admin, owner])
        assert.isUndefined(yield* ownerOf(gateway, account))
        assert.isDefined(revocation.transactionHash)
        assert.deepStrictEqual(revocation.revoked, [
          { role: "team_admin", account: admin },
          { role: "team_finance_admin", account: admin },
          { role: "owner", account: owner }
        ])
        assert.isFalse(yield* hasRole(gateway, account, "team_admin", admin))
        assert.isFalse(yield* hasRole(gateway, account, "team_finance_admin", admin))
        assert.isTrue(yield* hasRole(gateway, account, "team_viewer", viewer))
        const before = yield* balances(account)
        for (const key of [adminKey, ownerKey]) {
          const pay = yield* Effect.flip(
            executePayments(gateway, yield* signedPayments(key, account, [entry(suite.token, newWallet(), 1n)]))
          )
          assert.strictEqual(pay._tag, "SignerNotAuthorised")
          const grant = yield* Effect.flip(
            executeRoles(gateway, yield* signedRoles(key, account, [{ role: "team_admin", account: newWallet() }]))
          )
          assert.strictEqual(grant._tag, "SignerNotAuthorised")
        }
        assert.deepStrictEqual(yield* balances(account), before)
      })
    )

    it.effect("a wallet with nothing to revoke, or an account not created yet, costs no transaction", () =>
      Effect.gen(function* () {
        const { gateway } = yield* GatewayFixture
        const { account } = yield* freshTeam(0n)
        assert.deepStrictEqual(yield* revokeAuthority(gateway, account, [newWallet()]), { revoked: [] })
        const unborn = yield* accountAddresses(gateway)(newWallet(), bytes32())
        assert.deepStrictEqual(yield* revokeAuthority(gateway, unborn, [newWallet()]), { revoked: [] })
        assert.isUndefined(yield* ownerOf(gateway, unborn))
      })
    )

    it.effect("only an operator of the forwarder may revoke, and only through the forwarder", () =>
      Effect.gen(function* () {
        const { client, suite } = yield* GatewayFixture
        const { account, ownerKey } = yield* freshTeam(0n)
        const owner = privateKeyToAccount(ownerKey).address
        const refusal = (call: Promise<unknown>) =>
          Effect.promise(() =>
            call.then(
              () => "accepted",
              (error: BaseError) => {
                const reverted = error.walk((cause) => cause instanceof ContractFunctionRevertedError)
                return reverted instanceof ContractFunctionRevertedError ? reverted.data?.errorName : "unnamed"
              }
            )
          )
        const viaForwarder = yield* refusal(
          client.simulateContract({
            address: suite.forwarder,
            abi: svcAccountForwarderAbi,
            functionName: "revoke",
            args: [account, [owner]],
            account: owner
          })
        )
        assert.strictEqual(viaForwarder, "NotOperator")
        const direct = yield* refusal(
          client.simulateContract({
            address: account,
            abi: svcAccountAbi,
            functionName: "revoke",
            args: [[owner]],
            account: owner
          })
        )
        assert.strictEqual(direct, "NotForwarder")
      })
    )
  })
})
