/**
 * The `ChainGateway` on viem: requests go through the `SvcAccountForwarder`, sent and paid for by the relayer.
 */
import { svcAccountAbi, svcAccountBytecode, svcAccountForwarderAbi, svcEscrowAbi, testUsdcAbi } from "@svc/contracts"
import {
  type AccountCreation,
  ChainGateway,
  ChainUnavailable,
  type Deposit,
  type IntentRecord,
  type PaymentForwardRequest,
  type PaymentOutcome,
  type PaymentsForwardRequest,
  paymentRequestDigest,
  paymentsRequestDigest,
  type Revocation,
  type RolesForwardRequest,
  rolesRequestDigest,
  type Settlement,
  type SettlementProgress,
  SettlementReverted,
  type Signed,
  type SuiteAddresses,
  type TokenTransfer,
  TransactionJournal
} from "@svc/domain/chain"
import { Cause, type Config, Effect, Layer, Option, Queue, Redacted, type Scope, Stream } from "effect"
import {
  type Abi,
  type Address,
  ContractFunctionRevertedError,
  concat,
  encodeAbiParameters,
  encodeFunctionData,
  getContractAddress,
  type Hex,
  hexToBigInt,
  hexToNumber,
  isAddressEqual,
  keccak256,
  type Log,
  type PublicClient,
  parseEventLogs,
  type TransactionReceipt,
  toHex,
  zeroAddress
} from "viem"
import { privateKeyToAccount } from "viem/accounts"
import { makeChainClient } from "./ChainClient.ts"
import {
  escrowError,
  intentError,
  type RevertContext,
  readError,
  requestError,
  suiteErrorsAbi,
  writeError
} from "./ChainRevert.ts"
import { type ChainSettings, ChainSettingsConfig } from "./ChainSettings.ts"
import { type ContractsVersionMismatch, checkSuite } from "./ContractsVersion.ts"
import { makeRelayer, type Relayer } from "./Relayer.ts"
import { type BatchOptions, logsOfRequest, makeRequestBatcher } from "./RequestBatcher.ts"

interface ContractCall {
  readonly address: Address
  readonly abi: Abi
  readonly functionName: string
  readonly args: ReadonlyArray<unknown>
}

const forwarderAbi: Abi = [...svcAccountForwarderAbi, ...suiteErrorsAbi]
const accountAbi: Abi = [...svcAccountAbi, ...suiteErrorsAbi]
const escrowAbi: Abi = [...svcEscrowAbi, ...suiteErrorsAbi]

/** The outcomes `logs` report for one account, in log order (which is request order). */
const outcomesOf = (logs: ReadonlyArray<Log>, account: Address, escrow: Address): ReadonlyArray<PaymentOutcome> =>
  parseEventLogs({ abi: svcAccountAbi, logs: logs.filter((log) => isAddressEqual(log.address, account)) })
    .map((log): PaymentOutcome | undefined => {
      switch (log.eventName) {
        case "PaymentExecuted":
          return { ...log.args, outcome: "paid" }
        case "IntentExecuted":
          return { ...log.args, outcome: "intent_executed" }
        case "IntentRegistered":
          return { ...log.args, outcome: "intent_registered" }
        case "PaymentEscrowed":
          return {
            id: log.args.id,
            groupID: log.args.groupID,
            outcome: "escrowed",
            token: log.args.token,
            recipient: escrow,
            amount: log.args.amount,
            claimId: log.args.claimId
          }
        default:
          return undefined
      }
    })
    .filter((outcome) => outcome !== undefined)

/**
 * Builds the gateway on a client and a relayer for a deployed suite (contracts version 3): signed requests waiting at
 * the same time share transactions (`batch`, decision 0065).
 */
export const make: (
  client: PublicClient,
  relayer: Relayer,
  addresses: SuiteAddresses,
  options?: { readonly batch?: BatchOptions | undefined }
) => Effect.Effect<ChainGateway["Service"], ChainUnavailable, Scope.Scope> = Effect.fnUntraced(function* (
  client: PublicClient,
  relayer: Relayer,
  addresses: SuiteAddresses,
  options: { readonly batch?: BatchOptions | undefined } = {}
) {
  const chainId = yield* Effect.tryPromise({ try: () => client.getChainId(), catch: readError })
  // `maxRequests: 1` sends each request as its own transaction, estimated alone (the benchmarks' baseline).
  const batcher =
    options.batch?.maxRequests === 1
      ? undefined
      : yield* makeRequestBatcher(client, relayer, addresses.forwarder, options.batch)

  const read = <A>(call: ContractCall) =>
    Effect.tryPromise({ try: () => client.readContract(call as never) as Promise<A>, catch: readError })

  const estimateOf = <E>(call: ContractCall, toError: (error: unknown) => E) =>
    Effect.tryPromise({
      try: () => client.estimateContractGas({ ...call, account: relayer.address } as never),
      catch: toError
    })

  // Nothing is sent before the estimate answers: an unreachable node here leaves the request free to retry.
  const firstEstimate = <E>(estimate: Effect.Effect<bigint, E>) =>
    Effect.mapError(estimate, (error) =>
      error instanceof ChainUnavailable ? new ChainUnavailable({ reason: error.reason, nothingSent: true }) : error
    )

  /**
   * Estimates (which names any refusal without spending gas), sends through the relayer, waits for inclusion of
   * whichever version of the transaction the relayer's monitor gets mined. `carries` labels it in the journal.
   */
  const submit = <E>(
    call: ContractCall,
    toError: (error: unknown) => E,
    carries: ReadonlyArray<string> = [],
    affinity?: Address,
    progress?: SettlementProgress
  ) => {
    const estimate = estimateOf(call, toError)
    return Effect.gen(function* () {
      const gas = yield* firstEstimate(estimate)
      const hash = yield* relayer.send({
        to: call.address,
        data: encodeFunctionData(call as never),
        gas: gas + gas / 5n,
        carries: [call.functionName, ...carries],
        affinity
      })
      if (progress?.onSent !== undefined) yield* progress.onSent(hash)
      const receipt = yield* relayer.receipt(hash, progress?.onSent)
      if (receipt.status !== "success") {
        // Something changed between estimation and inclusion (a concurrent request spent the salt, or the
        // balance): estimating again at the new state names it.
        yield* estimate
        return yield* Effect.fail(new SettlementReverted({ reason: `transaction ${hash} reverted` }))
      }
      return receipt
    })
  }

  /**
   * A signed request for the forwarder: estimated alone, then carried, with the others waiting at the same time when
   * the suite can (`executeEach`), and answered with the receipt of the transaction that executed it. One that a batch
   * carried without executing it is estimated again at the new state, which names what changed (a concurrent request
   * spent the salt, or the balance).
   */
  const submitRequest = <E>(
    functionName: string,
    args: ReadonlyArray<unknown>,
    request: { readonly to: Address; readonly salt: bigint; readonly entries: number },
    toError: (error: unknown) => E,
    progress?: SettlementProgress
  ) => {
    const call: ContractCall = { address: addresses.forwarder, abi: forwarderAbi, functionName, args }
    const carries = [`salt:${request.salt}`, `account:${request.to}`]
    if (batcher === undefined) return submit(call, toError, carries, request.to, progress)
    return Effect.gen(function* () {
      const carried = yield* batcher.carry({
        data: encodeFunctionData(call as never),
        weight: 100_000n + 60_000n * BigInt(request.entries),
        salt: request.salt,
        account: request.to,
        carries: [functionName, ...carries],
        progress
      })
      if (carried._tag === "Refused") {
        return yield* Effect.fail(
          toError(new ContractFunctionRevertedError({ abi: forwarderAbi, data: carried.reason, functionName }))
        )
      }
      const { executed, receipt } = carried
      if (executed) return receipt
      yield* estimateOf(call, toError)
      return yield* Effect.fail(
        new SettlementReverted({
          reason: `request of salt ${request.salt} was not executed in transaction ${receipt.transactionHash}`
        })
      )
    })
  }

  const location = { chainId, verifyingContract: addresses.forwarder }

  /**
   * What a request's receipt settled on `account`, as every execution (and its reconciliation) answers it: the logs
   * of the request of `salt` when the transaction carried several.
   */
  const settlementOf = (receipt: TransactionReceipt, account: Address, salt?: bigint): Settlement => ({
    transactionHash: receipt.transactionHash,
    blockNumber: receipt.blockNumber,
    gasUsed: receipt.gasUsed,
    payments: outcomesOf(
      (salt === undefined ? undefined : logsOfRequest(receipt, addresses.forwarder, salt)) ?? receipt.logs,
      account,
      addresses.escrow
    )
  })

  const settle = (
    functionName: string,
    request: { from: Address; to: Address; salt: bigint },
    entries: number,
    args: ReadonlyArray<unknown>,
    digest: () => Hex,
    progress?: SettlementProgress
  ) => {
    const context: RevertContext = { account: request.to, signer: request.from, digest }
    return submitRequest(
      functionName,
      args,
      { ...request, entries },
      (error) => requestError(error, context),
      progress
    ).pipe(Effect.map((receipt) => settlementOf(receipt, request.to, request.salt)))
  }

  const envelope = (request: { from: Address; to: Address; salt: bigint; expires: bigint }) => ({
    from: request.from,
    to: request.to,
    salt: request.salt,
    expires: request.expires
  })

  const executePayments = Effect.fn("ChainGateway.executePayments")(function* (
    { request, signature }: Signed<PaymentsForwardRequest>,
    progress?: SettlementProgress
  ) {
    return yield* settle(
      "executePayments",
      request,
      request.data.payments.length,
      [{ ...envelope(request), payments: request.data.payments }, signature],
      () => paymentsRequestDigest(location, request),
      progress
    )
  })

  const executePayment = Effect.fn("ChainGateway.executePayment")(function* (
    { request, signature }: Signed<PaymentForwardRequest>,
    progress?: SettlementProgress
  ) {
    return yield* settle(
      "executePayment",
      request,
      1,
      [{ ...envelope(request), data: request.data }, signature],
      () => paymentRequestDigest(location, request),
      progress
    )
  })

  const executeRoles = Effect.fn("ChainGateway.executeRoles")(function* (
    { request, signature }: Signed<RolesForwardRequest>,
    progress?: SettlementProgress
  ) {
    const context: RevertContext = {
      account: request.to,
      signer: request.from,
      digest: () => rolesRequestDigest(location, request)
    }
    const receipt = yield* submitRequest(
      "executeRoles",
      [{ ...envelope(request), data: request.data }, signature],
      { ...request, entries: request.data.length },
      (error) => requestError(error, context),
      progress
    )
    const logs = logsOfRequest(receipt, addresses.forwarder, request.salt) ?? receipt.logs
    const grants = parseEventLogs({
      abi: svcAccountAbi,
      eventName: "RoleGranted",
      logs: logs.filter((log) => isAddressEqual(log.address, request.to))
    }).map((log) => ({ role: log.args.role, account: log.args.account }))
    return {
      transactionHash: receipt.transactionHash,
      blockNumber: receipt.blockNumber,
      gasUsed: receipt.gasUsed,
      grants
    }
  })

  const executeIntent = Effect.fn("ChainGateway.executeIntent")(function* (account: Address, id: Hex) {
    const receipt = yield* submit(
      { address: account, abi: accountAbi, functionName: "executeIntent", args: [id] },
      (error) => intentError(error, { account }),
      [`account:${account}`],
      account
    )
    return settlementOf(receipt, account)
  })

  const intent = Effect.fn("ChainGateway.intent")(function* (account: Address, id: Hex) {
    const [groupID, token, recipient, amount, payAtTime, validUntil, state] = yield* read<
      readonly [Hex, Address, Address, bigint, bigint, bigint, number]
    >({ address: account, abi: svcAccountAbi, functionName: "intents", args: [id] })
    if (state === 0) return undefined
    return {
      id,
      state: state === 1 ? "registered" : "executed",
      groupID,
      token,
      recipient,
      amount,
      payAtTime,
      validUntil
    } satisfies IntentRecord
  })

  const isSaltUsed = (salt: bigint) =>
    read<boolean>({ address: addresses.forwarder, abi: svcAccountForwarderAbi, functionName: "saltUsed", args: [salt] })

  const settlementOfSalt = Effect.fn("ChainGateway.settlementOfSalt")(function* (account: Address, salt: bigint) {
    // `account` is indexed, so the node filters by it; the salt is not, so the account's requests are matched here.
    const executed = yield* Effect.tryPromise({
      try: () =>
        client.getContractEvents({
          address: addresses.forwarder,
          abi: svcAccountForwarderAbi,
          eventName: "RequestExecuted",
          args: { account },
          fromBlock: "earliest",
          strict: true
        }),
      catch: readError
    })
    const log = executed.find((candidate) => candidate.args.salt === salt)
    if (log === undefined) return undefined
    const receipt = yield* Effect.tryPromise({
      try: () => client.getTransactionReceipt({ hash: log.transactionHash }),
      catch: readError
    })
    return settlementOf(receipt, account, salt)
  })

  const hasRole = (account: Address, role: string, wallet: Address) =>
    read<boolean>({
      address: account,
      abi: svcAccountAbi,
      functionName: "hasRole",
      args: [keccak256(toHex(role)), wallet]
    })

  const balanceOf = (holder: Address, token?: Address) =>
    read<bigint>({ address: token ?? addresses.token, abi: testUsdcAbi, functionName: "balanceOf", args: [holder] })

  // Asked of the node each time: viem's getBlockNumber shares a call already in flight, so a readiness check could
  // report an answer the node gave just before it stopped.
  const blockNumber = Effect.tryPromise({
    try: () => client.request({ method: "eth_blockNumber" }).then(hexToBigInt),
    catch: readError
  })

  // Each asked of the node every time, like the block number: a node that came back empty must read as not ready.
  const readiness = Effect.gen(function* () {
    const contracts: ReadonlyArray<readonly [string, Address]> = [
      ["forwarder", addresses.forwarder],
      ["escrow", addresses.escrow],
      ["token", addresses.token]
    ]
    const [servedChain, ...codes] = yield* Effect.tryPromise({
      try: () =>
        Promise.all([
          client.request({ method: "eth_chainId" }).then(hexToNumber),
          ...contracts.map(([, address]) => client.request({ method: "eth_getCode", params: [address, "latest"] }))
        ]),
      catch: readError
    })
    if (servedChain !== chainId) {
      return yield* new ChainUnavailable({ reason: `the node serves chain ${servedChain}, not ${chainId}` })
    }
    const missing = contracts.filter((_, i) => codes[i] === undefined || codes[i] === "0x").map(([name]) => name)
    if (missing.length > 0) {
      return yield* new ChainUnavailable({ reason: `no contract code on the node for: ${missing.join(", ")}` })
    }
  })

  // Computed here rather than asked of the forwarder, so listing 500 members costs no calls; and remembered, since
  // hashing the account's 5 KB init code takes about 0.4 ms.
  const knownAccounts = new Map<string, Address>()
  const accountAddress = (owner: Address, salt: Hex) =>
    Effect.sync(() => {
      const key = `${owner.toLowerCase()}:${salt}`
      const known = knownAccounts.get(key)
      if (known !== undefined) return known
      const account = getContractAddress({
        opcode: "CREATE2",
        from: addresses.forwarder,
        salt: keccak256(encodeAbiParameters([{ type: "address" }, { type: "bytes32" }], [owner, salt])),
        bytecode: concat([
          svcAccountBytecode,
          encodeAbiParameters([{ type: "address" }, { type: "address" }], [addresses.forwarder, owner])
        ])
      })
      if (knownAccounts.size >= 100_000) knownAccounts.clear()
      knownAccounts.set(key, account)
      return account
    })

  const exists = (account: Address) =>
    read<boolean>({
      address: addresses.forwarder,
      abi: svcAccountForwarderAbi,
      functionName: "isAccount",
      args: [account]
    })

  const createAccount = Effect.fn("ChainGateway.createAccount")(function* (owner: Address, salt: Hex) {
    const account = yield* accountAddress(owner, salt)
    if (yield* exists(account)) return { account, owner } satisfies AccountCreation
    return yield* submit(
      { address: addresses.forwarder, abi: forwarderAbi, functionName: "createAccount", args: [owner, salt] },
      writeError,
      [`account:${account}`],
      account
    ).pipe(
      Effect.map((receipt): AccountCreation => ({ account, owner, transactionHash: receipt.transactionHash })),
      // A concurrent creation of the same account wins the CREATE2 race: then the account is there.
      Effect.catch((error) =>
        Effect.flatMap(exists(account), (created) =>
          created ? Effect.succeed({ account, owner } satisfies AccountCreation) : Effect.fail(error)
        )
      )
    )
  })

  const ownerOf = Effect.fn("ChainGateway.ownerOf")(function* (account: Address) {
    if (!(yield* exists(account))) return undefined
    const owner = yield* read<Address>({ address: account, abi: svcAccountAbi, functionName: "owner", args: [] })
    return isAddressEqual(owner, zeroAddress) ? undefined : owner
  })

  const managerRoles = ["team_admin", "team_finance_admin", "team_viewer"] as const

  const revokeAuthority = Effect.fn("ChainGateway.revokeAuthority")(function* (
    account: Address,
    wallets: ReadonlyArray<Address>
  ) {
    if (wallets.length === 0 || !(yield* exists(account))) return { revoked: [] } satisfies Revocation
    // Read first, so removing a member with no authority on chain (most of them) costs no transaction.
    const owner = yield* read<Address>({ address: account, abi: svcAccountAbi, functionName: "owner", args: [] })
    const held = yield* Effect.forEach(
      wallets,
      (wallet) =>
        Effect.map(
          Effect.forEach(managerRoles, (role) => hasRole(account, role, wallet)),
          (roles) => isAddressEqual(owner, wallet) || roles.some((has) => has)
        ),
      { concurrency: 4 }
    )
    if (!held.some((has) => has)) return { revoked: [] } satisfies Revocation
    const receipt = yield* submit(
      { address: addresses.forwarder, abi: forwarderAbi, functionName: "revoke", args: [account, wallets] },
      writeError,
      [`account:${account}`, ...wallets.map((wallet) => `wallet:${wallet}`)],
      account
    )
    const revoked = parseEventLogs({
      abi: svcAccountAbi,
      logs: receipt.logs.filter((log) => isAddressEqual(log.address, account))
    }).flatMap((log) => {
      if (log.eventName === "OwnerRevoked") return [{ role: "owner", account: log.args.owner }]
      if (log.eventName !== "RoleRevoked") return []
      const role = managerRoles.find((name) => keccak256(toHex(name)) === log.args.roleHash)
      return [{ role: role ?? log.args.roleHash, account: log.args.account }]
    })
    return { transactionHash: receipt.transactionHash, revoked } satisfies Revocation
  })

  const releaseEscrow = Effect.fn("ChainGateway.releaseEscrow")(function* (claimId: Hex, to: Address, token?: Address) {
    const receipt = yield* submit(
      {
        address: addresses.escrow,
        abi: escrowAbi,
        functionName: "release",
        args: [claimId, token ?? addresses.token, to]
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

  const tokenTransfers = (fromBlock: bigint, toBlock: bigint) =>
    Effect.tryPromise({
      try: () =>
        client.getContractEvents({
          address: addresses.token,
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

  const blockHash = (number: bigint) =>
    Effect.tryPromise({
      try: () => client.getBlock({ blockNumber: number }).then((block) => block.hash as Hex),
      catch: (error) => error
    }).pipe(
      // A block the chain does not have (yet) is no block; any other failure is the node's.
      Effect.catch((error) =>
        error instanceof Error && error.name === "BlockNotFoundError"
          ? Effect.succeed(undefined)
          : Effect.fail(readError(error))
      )
    )

  const deposits = (accounts: ReadonlyArray<Address>, options: { readonly fromBlock?: bigint } = {}) =>
    // No account would mean no `to` filter, that is every transfer of the token.
    accounts.length === 0
      ? Stream.empty
      : Stream.callback<Deposit, ChainUnavailable>((queue) =>
          Effect.acquireRelease(
            Effect.sync(() =>
              client.watchContractEvent({
                address: addresses.token,
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

  return ChainGateway.of({
    chainId,
    addresses,
    accountAddress,
    createAccount,
    executePayments,
    executePayment,
    executeRoles,
    revokeAuthority,
    ownerOf,
    executeIntent,
    isSaltUsed,
    settlementOfSalt,
    intent,
    hasRole,
    balanceOf,
    blockNumber,
    readiness,
    relayerHealth: relayer.health,
    releaseEscrow,
    tokenTransfers,
    blockHash,
    deposits
  })
})

/**
 * The gateway for explicit settings. Its relayer journals into the store's `TransactionJournal` when the context has
 * one (the server's does), else into one of this process only.
 */
export const layer = (
  settings: ChainSettings
): Layer.Layer<ChainGateway, ChainUnavailable | ContractsVersionMismatch> =>
  Layer.effect(
    ChainGateway,
    Effect.gen(function* () {
      const client = makeChainClient({ ...settings, rpcUrl: Redacted.value(settings.rpcUrl) })
      const journal = Option.getOrUndefined(yield* Effect.serviceOption(TransactionJournal))
      const accounts = settings.relayerKeys.map((key) => privateKeyToAccount(Redacted.value(key)))
      const relayer = yield* makeRelayer(client, accounts, {
        ...settings.relayer,
        journal
      })
      yield* checkSuite(
        client,
        settings.addresses,
        relayer.addresses,
        "deploy this version with `npm run deploy` and set FORWARDER_ADDRESS and ESCROW_ADDRESS to the addresses it prints"
      )
      return yield* make(client, relayer, settings.addresses, { batch: settings.batch })
    })
  )

/** The gateway configured from the environment (production). */
export const layerConfig: Layer.Layer<ChainGateway, ChainUnavailable | ContractsVersionMismatch | Config.ConfigError> =
  Layer.unwrap(Effect.map(ChainSettingsConfig, layer))
