/** USDC moving on chain: the token's transfers in a range of blocks, deposits to accounts as they come, escrow releases. */
import { svcEscrowAbi, testUsdcAbi } from "@svc/contracts"
import type { ChainUnreachable, Deposit, TokenTransfer } from "@svc/domain/chain"
import { Cause, Effect, Queue, Stream } from "effect"
import { type Address, type Hex, parseEventLogs } from "viem"
import { escrowError, readError } from "../ChainRevert.ts"
import { escrowAbi, type Gateway, submit } from "./Gateway.ts"

/** The token's transfers in `fromBlock` to `toBlock`, in log order. */
export const tokenTransfers = (gateway: Gateway, fromBlock: bigint, toBlock: bigint) =>
  Effect.tryPromise({
    try: () =>
      gateway.client.getContractEvents({
        address: gateway.addresses.token,
        abi: testUsdcAbi,
        eventName: "Transfer",
        fromBlock,
        toBlock
      }),
    catch: readError
  }).pipe(
    Effect.map((logs) =>
      logs.map(
        (log): TokenTransfer => ({
          from: log.args.from as Address,
          to: log.args.to as Address,
          amount: log.args.value as bigint,
          transactionHash: log.transactionHash,
          blockNumber: log.blockNumber,
          blockHash: log.blockHash,
          logIndex: log.logIndex
        })
      )
    )
  )

/** Transfers of the token to `accounts` as the node sees them, from `fromBlock` when given. */
export const deposits = (
  gateway: Gateway,
  accounts: ReadonlyArray<Address>,
  options: { readonly fromBlock?: bigint } = {}
) =>
  // No account would mean no `to` filter, that is every transfer of the token.
  accounts.length === 0
    ? Stream.empty
    : Stream.callback<Deposit, ChainUnreachable>((queue) =>
        Effect.acquireRelease(
          Effect.sync(() =>
            gateway.client.watchContractEvent({
              address: gateway.addresses.token,
              abi: testUsdcAbi,
              eventName: "Transfer",
              args: { to: [...accounts] },
              ...(options.fromBlock === undefined ? {} : { fromBlock: options.fromBlock }),
              onLogs: (logs) => {
                for (const log of logs) {
                  Queue.offerUnsafe(queue, {
                    account: log.args.to!,
                    token: log.address,
                    from: log.args.from!,
                    amount: log.args.value!,
                    transactionHash: log.transactionHash!,
                    blockNumber: log.blockNumber!,
                    logIndex: log.logIndex!
                  })
                }
              },
              onError: (error) => {
                Queue.failCauseUnsafe(queue, Cause.fail(readError(error)))
              }
            })
          ),
          (unwatch) => Effect.sync(unwatch)
        )
      )

/** Releases the escrowed payment `claimId` to `to`. */
export const releaseEscrow = Effect.fn("ChainGateway.releaseEscrow")(function* (
  gateway: Gateway,
  claimId: Hex,
  to: Address,
  token?: Address
) {
  const receipt = yield* submit(
    gateway,
    {
      address: gateway.addresses.escrow,
      abi: escrowAbi,
      functionName: "release",
      args: [claimId, token ?? gateway.addresses.token, to]
    },
    escrowError
  )
  const [released] = parseEventLogs({ abi: svcEscrowAbi, eventName: "EscrowReleased", logs: receipt.logs })
  return {
    transactionHash: receipt.transactionHash,
    blockNumber: receipt.blockNumber,
    gasUsed: receipt.gasUsed,
    claimId,
    to,
    amount: released?.args.amount ?? 0n
  }
})
