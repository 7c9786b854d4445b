/**
 * The wallet key that signs in and signs payments, read on this machine only: `SVC_PRIVATE_KEY`, or an encrypted JSON
 * keystore (as ethers and foundry write them) opened with `SVC_KEY_PASSWORD` or a prompted password. The key and the
 * password are never written, logged or sent.
 */
import { readFileSync } from "node:fs"
import { Effect, Option, Redacted } from "effect"
import { Prompt } from "effect/cli"
import type { Hex } from "viem"
import { privateKeyToAccount } from "viem/accounts"
import { badArgument, CliFailure } from "./Failure.ts"

/** Where the key came from, for messages (never the key itself). */
export type KeySource = { readonly _tag: "env" } | { readonly _tag: "file"; readonly path: string }

/** A wallet key and where it came from. */
export interface WalletKey {
  readonly privateKey: Redacted.Redacted<Hex>
  readonly source: KeySource
}

const hexKey = /^(0x)?[0-9a-fA-F]{64}$/

const password = (path: string) =>
  Effect.gen(function* () {
    const fromEnv = process.env.SVC_KEY_PASSWORD
    if (fromEnv !== undefined) return fromEnv
    if (process.stdin.isTTY !== true) {
      return yield* new CliFailure({
        message: `the password of ${path} is needed: set SVC_KEY_PASSWORD or run in a terminal to be asked`
      })
    }
    const entered = yield* Prompt.run(Prompt.Password({ message: `Password of ${path}` })).pipe(
      Effect.mapError(() => new CliFailure({ message: "no password entered" }))
    )
    return Redacted.value(entered)
  })

/** Opens the keystore at `path`. */
export const keyFromKeystore = Effect.fn("Keys.keyFromKeystore")(function* (path: string) {
  const json = yield* Effect.try({
    try: () => readFileSync(path, "utf8"),
    catch: () => badArgument("--key-file", `cannot read ${path}`)
  })
  const secret = yield* password(path)
  const wallet = yield* Effect.tryPromise({
    // Loaded only here: most commands never open a keystore, and ethers is large.
    try: () => import("ethers").then(({ Wallet }) => Wallet.fromEncryptedJson(json, secret)),
    catch: (error) =>
      new CliFailure({
        message:
          error instanceof Error && /password/i.test(error.message)
            ? `cannot open ${path}: wrong password`
            : `cannot open ${path}: not an encrypted JSON keystore`
      })
  })
  return { privateKey: Redacted.make(wallet.privateKey as Hex), source: { _tag: "file", path } } satisfies WalletKey
})

/** The key from `SVC_PRIVATE_KEY`, if set. */
export const keyFromEnvironment = (): Effect.Effect<Option.Option<WalletKey>, CliFailure> => {
  const value = process.env.SVC_PRIVATE_KEY
  if (value === undefined || value === "") return Effect.succeed(Option.none())
  if (!hexKey.test(value.trim())) {
    return Effect.fail(badArgument("SVC_PRIVATE_KEY", "expected a private key of 32 bytes in hex (0x + 64 hex digits)"))
  }
  const trimmed = value.trim()
  const privateKey = (trimmed.startsWith("0x") ? trimmed : `0x${trimmed}`).toLowerCase() as Hex
  return Effect.succeed(Option.some({ privateKey: Redacted.make(privateKey), source: { _tag: "env" } }))
}

/**
 * The wallet the key at hand belongs to, without opening a keystore: `--key-file`'s `address` field (ethers and
 * foundry write it in the clear), else `SVC_PRIVATE_KEY`'s address; none without a key, or for a keystore that does
 * not say.
 */
export const walletOfKeyAtHand = (keyFile: Option.Option<string>): Effect.Effect<Option.Option<string>, CliFailure> => {
  if (Option.isSome(keyFile)) {
    try {
      const address = (JSON.parse(readFileSync(keyFile.value, "utf8")) as { address?: unknown }).address
      return Effect.succeed(
        typeof address === "string" && /^(0x)?[0-9a-fA-F]{40}$/.test(address)
          ? Option.some(`0x${address.replace(/^0x/, "")}`.toLowerCase())
          : Option.none()
      )
    } catch {
      return Effect.fail(badArgument("--key-file", `cannot read ${keyFile.value}`))
    }
  }
  return Effect.map(
    keyFromEnvironment(),
    Option.map((key) => privateKeyToAccount(Redacted.value(key.privateKey)).address.toLowerCase())
  )
}

/** The key of `--key-file` when given, else of `SVC_PRIVATE_KEY`, else none. */
export const findKey = (
  keyFile: Option.Option<string>
): Effect.Effect<Option.Option<WalletKey>, CliFailure, Prompt.Environment> =>
  Option.isSome(keyFile) ? Effect.map(keyFromKeystore(keyFile.value), Option.some) : keyFromEnvironment()

/** Like `findKey`, failing with how to provide a key when there is none. */
export const requireKey = (keyFile: Option.Option<string>): Effect.Effect<WalletKey, CliFailure, Prompt.Environment> =>
  Effect.flatMap(findKey(keyFile), (found) =>
    Option.isSome(found)
      ? Effect.succeed(found.value)
      : Effect.fail(
          new CliFailure({
            message: "no wallet key: set SVC_PRIVATE_KEY or pass --key-file with an encrypted keystore"
          })
        )
  )
