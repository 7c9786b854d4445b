/** The transaction journal kept in one process's memory, for tools and tests that have no store. */
import type { JournaledTransaction, TransactionStatus } from "@svc/domain/chain"
import { TransactionJournal } from "@svc/domain/chain"
import { Effect } from "effect"
import type { Address, Hex } from "viem"

/** A journal kept in this process only: for tools and tests that have no store (what it holds ends with them). */
export const processJournal = (): TransactionJournal["Service"] => {
  const rows = new Map<Hex, JournaledTransaction>()
  const leases = new Map<string, { holder: string; until: number }>()
  const leaseKey = (chainId: number, relayer: Address, lease: string) => `${chainId}:${relayer.toLowerCase()}:${lease}`
  const unfinished = (status: TransactionStatus) => status === "signed" || status === "sent" || status === "included"
  const of = (chainId: number, relayer: Address) =>
    [...rows.values()]
      .filter((row) => row.chainId === chainId && row.relayer === relayer.toLowerCase())
      .sort((a, b) => a.nonce - b.nonce || a.createdAt - b.createdAt)
  return TransactionJournal.of({
    record: (transaction) =>
      Effect.sync(() => {
        if (!rows.has(transaction.hash)) {
          rows.set(transaction.hash, { ...transaction, relayer: transaction.relayer.toLowerCase() as Address })
        }
      }),
    update: (hash, change) =>
      Effect.sync(() => {
        const row = rows.get(hash)
        if (row === undefined) return
        const { blockNumber: _, blockHash: __, ...rest } = row
        const keepBlock = change.block === undefined && change.status !== "sent" && change.status !== "signed"
        rows.set(hash, {
          ...rest,
          status: change.status,
          updatedAt: change.at,
          ...(change.block !== undefined
            ? { blockNumber: change.block.number, blockHash: change.block.hash }
            : keepBlock
              ? { blockNumber: row.blockNumber, blockHash: row.blockHash }
              : {})
        })
      }),
    nextNonce: (chainId, relayer) =>
      Effect.sync(() => {
        const taken = of(chainId, relayer).filter((row) => row.status !== "failed")
        return taken.length === 0 ? undefined : Math.max(...taken.map((row) => row.nonce)) + 1
      }),
    unfinished: (chainId, relayer) => Effect.sync(() => of(chainId, relayer).filter((row) => unfinished(row.status))),
    versions: (chainId, relayer, nonce) => Effect.sync(() => of(chainId, relayer).filter((row) => row.nonce === nonce)),
    reopenFrom: (chainId, relayer, fromNonce, at) =>
      Effect.sync(() => {
        const mined = of(chainId, relayer).filter(
          (row) => row.nonce >= fromNonce && (row.status === "included" || row.status === "confirmed")
        )
        for (const { blockNumber: _, blockHash: __, ...row } of mined) {
          rows.set(row.hash, { ...row, status: "sent", updatedAt: at })
        }
        return mined.length
      }),
    minedSince: (chainId, relayer, fromBlock) =>
      Effect.sync(() =>
        of(chainId, relayer)
          .filter(
            (row) =>
              (row.status === "included" || row.status === "confirmed") &&
              row.blockNumber !== undefined &&
              row.blockNumber >= fromBlock
          )
          .sort((a, b) => Number((a.blockNumber ?? 0n) - (b.blockNumber ?? 0n)) || a.nonce - b.nonce)
      ),
    byHash: (hash) => Effect.sync(() => rows.get(hash)),
    lease: (chainId, relayer, lease, holder, now, until) =>
      Effect.sync(() => {
        const key = leaseKey(chainId, relayer, lease)
        const held = leases.get(key)
        if (held !== undefined && held.until > now && held.holder !== holder) return false
        leases.set(key, { holder, until })
        return true
      }),
    release: (chainId, relayer, lease, holder) =>
      Effect.sync(() => {
        const key = leaseKey(chainId, relayer, lease)
        if (leases.get(key)?.holder === holder) leases.delete(key)
      })
  })
}
