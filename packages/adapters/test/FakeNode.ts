/**
 * Test support: a JSON-RPC node in memory, for the relayer's nonce and lease logic without anvil (decision 0095). It
 * holds what a node holds of the relayer's keys: each key's transactions by nonce (a pending one replaced by a newer
 * version of its nonce), blocks mined when the test says, receipts. Each process of a test gets its own client
 * (`clientOf`), whose calls of a method the test may hold (`hold`): the process is then paused once the node answered
 * that call, as by a long GC or `SIGSTOP`, until released.
 */
import {
  type Address,
  createPublicClient,
  custom,
  type Hash,
  type Hex,
  keccak256,
  numberToHex,
  type PublicClient,
  parseTransaction,
  recoverTransactionAddress,
  toHex
} from "viem"

/** A transaction the node took: its sender, nonce and bytes, and its block once mined. */
export interface NodeTransaction {
  readonly hash: Hash
  readonly from: Address
  readonly nonce: number
  readonly raw: Hex
  block?: number | undefined
}

/** A call held by the test: released by `release()`. */
export interface Hold {
  /** How many calls wait at it now. */
  readonly waiting: () => number
  readonly release: () => void
}

const blockHash = (number: number): Hash => keccak256(toHex(`fake block ${number}`))

/** The node in memory. */
export interface FakeNode {
  /** Every transaction the node took, in order (replacements too). */
  readonly taken: () => ReadonlyArray<NodeTransaction>
  /** Mines a block holding every pending version that holds its nonce now; answers its number. */
  readonly mine: () => number
  /** A client of one process: the node's state, its own holds. */
  readonly clientOf: () => {
    readonly client: PublicClient
    /** Holds this process's calls of `method` once answered, until released. */
    readonly hold: (method: string) => Hold
  }
}

/** The node, and a client for each process of the test. */
export const makeFakeNode = (chainId = 42161): FakeNode => {
  /** Every transaction taken, in order (replacements too). */
  const taken: Array<NodeTransaction> = []
  let head = 1
  const byHash = new Map<Hash, NodeTransaction>()
  /** Per key, per nonce: the version that holds the nonce now (pending, or mined). */
  const byNonce = new Map<string, Map<number, NodeTransaction>>()
  const noncesOf = (from: string) => byNonce.get(from.toLowerCase()) ?? new Map<number, NodeTransaction>()
  const mined = (from: string) => [...noncesOf(from).values()].filter((tx) => tx.block !== undefined).length
  /** Pending included: the first nonce with no version held. */
  const pending = (from: string) => {
    let nonce = 0
    while (noncesOf(from).has(nonce)) nonce++
    return nonce
  }

  const send = async (raw: Hex) => {
    const parsed = parseTransaction(raw)
    const from = (await recoverTransactionAddress({ serializedTransaction: raw as never })).toLowerCase() as Address
    const hash = keccak256(raw)
    if (byHash.has(hash)) throw new Error("already known")
    const nonce = parsed.nonce ?? 0
    const held = noncesOf(from).get(nonce)
    if (held?.block !== undefined || nonce < mined(from)) throw new Error("nonce too low")
    const tx: NodeTransaction = { hash, from, nonce, raw }
    taken.push(tx)
    byHash.set(hash, tx)
    byNonce.set(from, noncesOf(from).set(nonce, tx))
    return hash
  }

  const block = (number: number) => ({
    number: numberToHex(number),
    hash: blockHash(number),
    parentHash: blockHash(number - 1),
    timestamp: numberToHex(1_700_000_000 + number),
    baseFeePerGas: numberToHex(1_000_000),
    gasLimit: numberToHex(30_000_000),
    gasUsed: "0x0",
    miner: `0x${"0".repeat(40)}`,
    nonce: "0x0000000000000000",
    difficulty: "0x0",
    extraData: "0x",
    logsBloom: `0x${"0".repeat(512)}`,
    transactions: [],
    uncles: []
  })

  const receipt = (tx: NodeTransaction) =>
    tx.block === undefined
      ? null
      : {
          transactionHash: tx.hash,
          transactionIndex: "0x0",
          blockHash: blockHash(tx.block),
          blockNumber: numberToHex(tx.block),
          from: tx.from,
          to: null,
          status: "0x1",
          type: "0x2",
          gasUsed: numberToHex(21_000),
          cumulativeGasUsed: numberToHex(21_000),
          effectiveGasPrice: numberToHex(1_000_000),
          contractAddress: null,
          logs: [],
          logsBloom: `0x${"0".repeat(512)}`
        }

  const transaction = (tx: NodeTransaction) => {
    const parsed = parseTransaction(tx.raw)
    return {
      hash: tx.hash,
      from: tx.from,
      to: parsed.to ?? null,
      nonce: numberToHex(tx.nonce),
      input: parsed.data ?? "0x",
      value: "0x0",
      gas: numberToHex(parsed.gas ?? 0n),
      maxFeePerGas: numberToHex(parsed.maxFeePerGas ?? 0n),
      maxPriorityFeePerGas: numberToHex(parsed.maxPriorityFeePerGas ?? 0n),
      type: "0x2",
      chainId: numberToHex(chainId),
      blockHash: tx.block === undefined ? null : blockHash(tx.block),
      blockNumber: tx.block === undefined ? null : numberToHex(tx.block),
      transactionIndex: tx.block === undefined ? null : "0x0",
      v: "0x0",
      r: "0x1",
      s: "0x1",
      yParity: "0x0",
      accessList: []
    }
  }

  const answer = async (method: string, params: ReadonlyArray<unknown>): Promise<unknown> => {
    switch (method) {
      case "eth_chainId":
        return numberToHex(chainId)
      case "eth_blockNumber":
        return numberToHex(head)
      case "eth_getBlockByNumber": {
        const tag = params[0] as string
        const number = tag === "latest" || tag === "pending" ? head : Number(tag)
        return number > head ? null : block(number)
      }
      case "eth_getTransactionCount": {
        const [address, tag] = params as [string, string]
        return numberToHex(tag === "pending" ? pending(address) : mined(address))
      }
      case "eth_maxPriorityFeePerGas":
        return numberToHex(1_000_000)
      case "eth_gasPrice":
        return numberToHex(2_000_000)
      case "eth_getBalance":
        return numberToHex(10n ** 18n)
      case "eth_sendRawTransaction":
        return await send(params[0] as Hex)
      case "eth_getTransactionReceipt": {
        const tx = byHash.get(params[0] as Hash)
        return tx === undefined ? null : receipt(tx)
      }
      case "eth_getTransactionByHash": {
        const tx = byHash.get(params[0] as Hash)
        return tx === undefined ? null : transaction(tx)
      }
      default:
        throw new Error(`the fake node does not answer ${method}`)
    }
  }

  return {
    taken: () => [...taken],
    mine: () => {
      head++
      for (const nonces of byNonce.values()) {
        for (const tx of nonces.values()) if (tx.block === undefined) tx.block = head
      }
      return head
    },
    clientOf: () => {
      const holds = new Map<string, { waiting: Array<() => void>; held: boolean }>()
      const client: PublicClient = createPublicClient({
        transport: custom({
          request: async ({ method, params }: { method: string; params?: ReadonlyArray<unknown> }) => {
            const answered = await answer(method, params ?? [])
            // Paused once the node answered: what it hears was true when it asked, maybe not when it goes on.
            const hold = holds.get(method)
            if (hold?.held === true) await new Promise<void>((resume) => hold.waiting.push(resume))
            return answered
          }
        }),
        pollingInterval: 50
      }) as PublicClient
      const hold = (method: string): Hold => {
        const state = { waiting: [] as Array<() => void>, held: true }
        holds.set(method, state)
        return {
          waiting: () => state.waiting.length,
          release: () => {
            state.held = false
            for (const resume of state.waiting.splice(0)) resume()
          }
        }
      }
      return { client, hold }
    }
  }
}
