/**
 * A block survives `kill -9` (issue 39, decision 0107), with `npm start`'s entry point as a real process: a finance
 * admin granted on chain is blocked, then the whole process group is killed and the chain put back as saved before the
 * grant (what a kill in the second after it can leave on disk). After the restart the transaction journal has sent
 * the grant and the revocation again, in order: the role is still revoked, and the member still blocked.
 */
import { readFileSync, statSync, utimesSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { signableOf, type TypedDataBundle } from "@svc/domain/eip712"
import { Effect } from "effect"
import { type Address, createPublicClient, http, keccak256, parseAbi, toHex } from "viem"
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from "viem/accounts"
import { exited, type Started, startNpm, tempDir } from "../test/NpmStart.ts"

/** A JSON request to the started server: status and parsed body. */
const request = (base: string, method: string, path: string, token?: string, body?: unknown) =>
  Effect.promise(async () => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: {
        ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
        ...(body === undefined ? {} : { "content-type": "application/json" })
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    })
    // biome-ignore lint/suspicious/noExplicitAny: the API's JSON
    return { status: response.status, body: (await response.json()) as any }
  })

const signIn = (base: string, account: PrivateKeyAccount) =>
  Effect.gen(function* () {
    const siwe = yield* request(base, "GET", `/v2/auth/siwe?wallet=${account.address}`)
    const message: string = siwe.body.data.siwe
    const sig = yield* Effect.promise(() => account.signMessage({ message }))
    const verified = yield* request(base, "POST", "/v2/auth/verify", undefined, {
      message,
      sig,
      nonce: siwe.body.data.nonce
    })
    return verified.body.data.jwt as string
  })

const demoOf = (started: Started) => ({
  team: /Demo team: +(te-\S{12})/.exec(started.output())?.[1] as string,
  admin: privateKeyToAccount(/Demo admin key: +(0x[0-9a-f]{64})/.exec(started.output())?.[1] as `0x${string}`),
  account: /Demo team account: +(0x[0-9a-fA-F]{40})/.exec(started.output())?.[1] as Address,
  rpcUrl: /anvil at (http:\/\/\S+)/.exec(started.output())?.[1] as string
})

const killGroup = (started: Started) =>
  Effect.andThen(
    Effect.sync(() => started.child.pid !== undefined && process.kill(-started.child.pid, "SIGKILL")),
    exited(started.child)
  )

describe("a block and kill -9", () => {
  it.live(
    "after kill -9 and a chain saved before the grant, the blocked finance admin's role is still revoked",
    () =>
      Effect.gen(function* () {
        const directory = yield* tempDir
        const chainFile = join(directory, "anvil-state.json")
        const finance = privateKeyToAccount(generatePrivateKey())
        const before = yield* Effect.scoped(
          Effect.gen(function* () {
            const started = yield* startNpm({ SVC_DATA_DIR: directory })
            const demo = demoOf(started)
            const token = yield* signIn(started.base, demo.admin)
            const saved = { state: readFileSync(chainFile), at: statSync(chainFile).mtime }
            const invite = yield* request(started.base, "POST", "/v2/invites/manager", token, {
              nanoid: demo.team,
              invites: [{ email: "fin@example.com", role: "team_finance_admin", wallet: finance.address }]
            })
            assert.strictEqual(invite.status, 200, JSON.stringify(invite.body))
            const bundle = invite.body.data as TypedDataBundle & { invites: Array<string> }
            const granted = yield* request(started.base, "PUT", "/v2/invites/manager", token, {
              invites: bundle.invites,
              signer: demo.admin.address,
              typed_data: bundle.typed_data,
              signature: yield* Effect.promise(() => demo.admin.signTypedData(signableOf(bundle) as never))
            })
            assert.strictEqual(granted.status, 200, JSON.stringify(granted.body))
            const users = yield* request(started.base, "GET", `/v2/teams/${demo.team}/users`, token)
            const user = users.body.data.users.find((u: { email: string }) => u.email === "fin@example.com").nanoid
            const blocked = yield* request(started.base, "PUT", `/v2/teams/${demo.team}/member/${user}/block`, token, {
              blocked: true,
              reason: "left the company"
            })
            assert.strictEqual(blocked.status, 200, JSON.stringify(blocked.body))
            yield* killGroup(started)
            writeFileSync(chainFile, saved.state)
            utimesSync(chainFile, saved.at, saved.at)
            return { demo, token, user }
          })
        )
        yield* Effect.scoped(
          Effect.gen(function* () {
            const restarted = yield* startNpm({ SVC_DATA_DIR: directory })
            // Sent again from the journal: the grant, then the revocation.
            assert.match(restarted.output(), /lacks 2 transaction\(s\) of relayer/)
            const client = createPublicClient({ transport: http(demoOf(restarted).rpcUrl), pollingInterval: 10 })
            const hasRole = yield* Effect.promise(() =>
              client.readContract({
                address: before.demo.account,
                abi: parseAbi(["function hasRole(bytes32,address) view returns (bool)"]),
                functionName: "hasRole",
                args: [keccak256(toHex("team_finance_admin")), finance.address]
              })
            )
            assert.isFalse(hasRole)
            const users = yield* request(restarted.base, "GET", `/v2/teams/${before.demo.team}/users`, before.token)
            const listed = users.body.data.users.find((u: { nanoid: string }) => u.nanoid === before.user)
            assert.deepInclude(listed, { blocked: true, role: "team_finance_admin" })
          })
        )
      }).pipe(Effect.scoped),
    180_000
  )
})
