/** The transaction journal kept in one process's memory, for tools and tests that have no store. */
import type { JournaledTransaction, TransactionStatus } from "@svc/domain/chain"
import { TransactionJournal, TransactionMachine, unfinishedStatuses } from "@svc/domain/chain"
import { type FencingToken, fencingTokenOf } from "@svc/domain/Lease"
import { Effect, Option } from "effect"
import type { Address, Hex } from "viem"

/**
 * A journal kept in this process only: for tools and tests that have no store (what it holds ends with them). It
 * keeps the journal's contract: fenced records and moves, statuses moved only as the transaction machine allows.
 */
export const processJournal = (): TransactionJournal["Service"] => {
  const rows = new Map<Hex, JournaledTransaction>()
  const leases = new Map<string, { token: FencingToken; until: number }>()
  const leaseKey = (chainId: number, relayer: Address, lease: string) => `${chainId}:${relayer.toLowerCase()}:${lease}`
  const unfinished = (status: TransactionStatus) => unfinishedStatuses.includes(status)
  const of = (chainId: number, relayer: Address) =>
    [...rows.values()]
      .filter((row) => row.chainId === chainId && row.relayer === relayer.toLowerCase())
      .sort((a, b) => a.nonce - b.nonce || a.createdAt - b.createdAt)
  const holds = (chainId: number, relayer: Address, fence?: { lease: string; token: FencingToken }) =>
    fence === undefined || leases.get(leaseKey(chainId, relayer, fence.lease))?.token === fence.token
  return TransactionJournal.of({
    record: (transaction, fence) =>
      Effect.sync(() => {
        if (rows.has(transaction.hash)) return true
        if (!holds(transaction.chainId, transaction.relayer, fence)) return false
        rows.set(transaction.hash, { ...transaction, relayer: transaction.relayer.toLowerCase() as Address })
        return true
      }),
    transition: (hash, change, fence) =>
      Effect.andThen(
        Effect.orDie(TransactionMachine.move(change.from, change.to)),
        Effect.sync(() => {
          const row = rows.get(hash)
          if (row === undefined || row.status !== change.from || !holds(row.chainId, row.relayer, fence)) return false
          const { blockNumber: _, blockHash: __, ...rest } = row
          const block =
            change.to === "sent"
              ? {}
              : change.block !== undefined
                ? { blockNumber: change.block.number, blockHash: change.block.hash }
                : { blockNumber: row.blockNumber, blockHash: row.blockHash }
          rows.set(hash, { ...rest, status: change.to, updatedAt: change.at, ...block })
          return true
        })
      ),
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
    unfinishedCarrying: (chainId, label) =>
      Effect.sync(() =>
        [...rows.values()]
          .filter((row) => row.chainId === chainId && unfinished(row.status) && row.carries.includes(label))
          .sort((a, b) => a.createdAt - b.createdAt)
      ),
    lease: (chainId, relayer, lease, held, now, until) =>
      Effect.sync(() => {
        const key = leaseKey(chainId, relayer, lease)
        const current = leases.get(key)
        if (current !== undefined && current.token !== held && current.until > now) return Option.none()
        const token = current !== undefined && current.token === held ? held : fencingTokenOf((current?.token ?? 0) + 1)
        leases.set(key, { token, until })
        return Option.some({ token, until })
      }),
    release: (chainId, relayer, lease, token) =>
      Effect.sync(() => {
        const key = leaseKey(chainId, relayer, lease)
        const current = leases.get(key)
        if (current?.token === token) leases.set(key, { token, until: 0 })
      })
  })
}
