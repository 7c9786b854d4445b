/**
 * The one line a start logs once it serves, and the one a graceful stop logs (issue 35, item 5): where the API is, the
 * storage it keeps its data in and the chain it pays on (issue 36, item 7: a production start names its chain). No
 * URI of the operator's is written: `MONGODB_URI` and `RPC_URL` usually carry credentials or a provider's key.
 */
import { rpcUrlsOf } from "@svc/adapters/evm"
import { Cause, Clock, Effect, Exit, Option, Redacted } from "effect"
import type { AppConfig } from "./AppConfig.ts"
import { databaseFileOf } from "./EmbeddedData.ts"

const chainNames: Record<number, string> = { 42161: "Arbitrum One", 421614: "Arbitrum Sepolia" }

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? "" : "s"}`

/** The storage, as the start-up line names it. */
const storageOf = (config: AppConfig) =>
  config.mongo
    ? `MongoDB (MONGODB_URI)${Option.match(config.database, { onNone: () => "", onSome: (name) => `, database ${name}` })}`
    : `${config.embedded ? "embedded " : ""}SQLite at ${databaseFileOf(config.dataDirectory)}`

/** The chain, as the start-up line names it: its id and name, and how it is reached and paid on. */
const chainOf = (config: AppConfig, started: { readonly rpcUrl: string | undefined; readonly restored: boolean }) => {
  const name = chainNames[config.chainId]
  const id = `chain ${config.chainId}${name === undefined ? "" : ` (${name})`}`
  if (config.embedded)
    return `anvil at ${started.rpcUrl} (chain ${config.chainId}${started.restored ? ", restored" : ""})`
  if (Option.isNone(config.rpcUrlConfig))
    return "no chain (RPC_URL unset): payments, balances and manager invites answer 501"
  const endpoints = plural(rpcUrlsOf(Redacted.value(config.rpcUrlConfig.value)).length, "endpoint")
  const paying = config.relayerConfigured
    ? `forwarder ${Option.getOrElse(config.forwarder, () => "unset")}, ${plural(config.relayerKeyCount, "relayer key")}, final at ${plural(config.confirmations, "confirmation")}`
    : "no RELAYER_PRIVATE_KEYS: payments answer 501"
  return `${id} through RPC_URL (${endpoints}), ${paying}`
}

/** `svc API at …; <storage>, <chain>`: logged once, when the server serves. */
export const logStarted = (
  config: AppConfig,
  started: { readonly baseUrl: string; readonly rpcUrl: string | undefined; readonly restored: boolean }
) =>
  Effect.logInfo(
    `svc API at ${started.baseUrl} (docs at ${started.baseUrl}/docs, OpenAPI at ${started.baseUrl}/openapi.json); ` +
      `${storageOf(config)}, ${chainOf(config, started)}`
  )

/**
 * Logs `svc API stopped …` once a stop that began after the start completed has run every finalizer: acquire it first,
 * so its release runs last, and run the answered `served` once the server serves and `stopping` (acquired last, so
 * released first: it notes when the stop began) right after.
 */
export const stopLine = (config: AppConfig) =>
  Effect.gen(function* () {
    let servedAt: number | undefined
    let stopBegan: number | undefined
    const stopped = (exit: Exit.Exit<unknown, unknown>) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        const seconds = ((now - (stopBegan ?? now)) / 1000).toFixed(1)
        const why = Exit.isFailure(exit) && !Cause.hasInterruptsOnly(exit.cause) ? " on the error above" : ""
        const chain = config.embedded ? ", the chain saved and anvil stopped" : ""
        return Effect.logInfo(
          `svc API stopped${why} in ${seconds} s: requests in flight answered, workers stopped${chain}`
        )
      })
    yield* Effect.addFinalizer((exit) => (servedAt === undefined ? Effect.void : stopped(exit)))
    return {
      served: Effect.map(Clock.currentTimeMillis, (now) => {
        servedAt = now
      }),
      stopping: Effect.addFinalizer(() =>
        Effect.map(Clock.currentTimeMillis, (now) => {
          stopBegan = now
        })
      )
    }
  })
