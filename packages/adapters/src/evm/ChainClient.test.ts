import { randomBytes } from "node:crypto"
import { connect, createServer, type Server, type Socket } from "node:net"
import { assert, describe, it } from "@effect/vitest"
import { ChainGateway } from "@svc/domain/chain"
import { Context, Effect, Layer, Redacted } from "effect"
import { type Hex, toHex } from "viem"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import { inject } from "vitest"
import { EmbeddedChain } from "./EmbeddedChain.ts"
import * as ViemChainGateway from "./ViemChainGateway.ts"

const rpcUrl = inject("rpcUrl")
const chainId = 42161

/** A loopback TCP endpoint: `forward` passes traffic to the node, `hang` accepts and never answers (a wedged node). */
const endpoint = Effect.acquireRelease(
  Effect.promise(
    () =>
      new Promise<{ readonly url: string; readonly hang: () => void; readonly server: Server }>((resolve) => {
        const node = new URL(rpcUrl)
        const open = new Set<Socket>()
        let hanging = false
        const server = createServer((client) => {
          open.add(client)
          client.on("error", () => undefined)
          client.on("close", () => open.delete(client))
          if (hanging) return
          const upstream = createConnection(node)
          upstream.on("error", () => client.destroy())
          client.on("close", () => upstream.destroy())
          client.pipe(upstream).pipe(client)
        })
        server.listen(0, "127.0.0.1", () => {
          const address = server.address()
          const port = typeof address === "object" && address !== null ? address.port : 0
          resolve({
            url: `http://127.0.0.1:${port}`,
            server,
            hang: () => {
              hanging = true
              for (const socket of open) socket.destroy()
            }
          })
        })
      })
  ),
  ({ server }) => Effect.sync(() => server.close())
)

const createConnection = (url: URL) => connect(Number(url.port), url.hostname)

/** A URL nothing listens on: connections are refused. */
const refused = Effect.promise(
  () =>
    new Promise<string>((resolve) => {
      const server = createServer()
      server.listen(0, "127.0.0.1", () => {
        const address = server.address()
        const port = typeof address === "object" && address !== null ? address.port : 0
        server.close(() => resolve(`http://127.0.0.1:${port}`))
      })
    })
)

const bytes32 = (): Hex => toHex(randomBytes(32))

/**
 * A suite on the shared anvil, and a production gateway (`ViemChainGateway.layer`) for it whose `RPC_URL` is `urls`:
 * the gateway must do its work through whichever endpoint answers.
 */
const gatewayOver = (urls: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const embedded = yield* Layer.build(EmbeddedChain.layer({ rpcUrl, chainId }))
    const suite = Context.get(embedded, EmbeddedChain).suite
    // A relayer of its own: a key is never shared by two relayers (the embedded one mints).
    const relayerKey = generatePrivateKey()
    yield* Context.get(embedded, EmbeddedChain).setEtherBalance(privateKeyToAccount(relayerKey).address, 10n ** 21n)
    const context = yield* Layer.build(
      ViemChainGateway.layer({
        rpcUrl: Redacted.make(urls.join(", ")),
        chainId,
        relayerKeys: [Redacted.make(relayerKey)],
        addresses: suite,
        pollingInterval: 10,
        rpcTimeoutMillis: 1_000
      })
    )
    return { gateway: Context.get(context, ChainGateway), embedded: Context.get(embedded, EmbeddedChain) }
  })

/** Creates a team account and funds it: two transactions, each sent, mined and read back through the gateway. */
const createAndFund = Effect.fnUntraced(function* (
  gateway: ChainGateway["Service"],
  embedded: EmbeddedChain["Service"]
) {
  const owner = privateKeyToAccount(generatePrivateKey()).address
  const created = yield* gateway.createAccount(owner, bytes32())
  assert.isDefined(created.transactionHash)
  yield* embedded.mint(created.account, 5_000_000n)
  assert.strictEqual(yield* gateway.balanceOf(created.account), 5_000_000n)
  assert.strictEqual(yield* gateway.ownerOf(created.account), owner)
})

describe("RPC_URL with several endpoints (failover)", () => {
  it.live(
    "sends, mines and reads through the healthy endpoint when the ones before it refuse or hang",
    () =>
      Effect.gen(function* () {
        const hanging = yield* endpoint
        hanging.hang()
        const { gateway, embedded } = yield* gatewayOver([yield* refused, hanging.url, rpcUrl])
        assert.isAbove(Number(yield* gateway.blockNumber), 0)
        yield* createAndFund(gateway, embedded)
        yield* createAndFund(gateway, embedded)
      }).pipe(Effect.scoped),
    60_000
  )

  it.live(
    "keeps working when the endpoint in use starts to hang",
    () =>
      Effect.gen(function* () {
        const first = yield* endpoint
        const { gateway, embedded } = yield* gatewayOver([first.url, rpcUrl])
        yield* createAndFund(gateway, embedded)
        first.hang()
        yield* createAndFund(gateway, embedded)
        assert.isAbove(Number(yield* gateway.blockNumber), 0)
      }).pipe(Effect.scoped),
    60_000
  )
})
