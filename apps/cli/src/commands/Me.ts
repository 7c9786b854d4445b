/**
 * `svc me payout-address show|set`: where the caller's teams pay them (decision 0108). `set` signs the proof here,
 * twice: with the wallet key (as every signing command) and with the new address's key (`SVC_PAYOUT_PRIVATE_KEY`, or
 * `--address-key-file`, an encrypted keystore). Neither key is sent; a contract wallet signs through @svc/client.
 */

import type { WalletAddress } from "@svc/domain/Evm"
import { signTypedDataBundle } from "@svc/domain/eip712"
import { Effect, Option, Redacted } from "effect"
import { Command, Flag } from "effect/cli"
import type { Hex } from "viem"
import { privateKeyToAccount } from "viem/accounts"
import { answer } from "../Api.ts"
import { badArgument, CliFailure } from "../Failure.ts"
import { keyFromKeystore, requireKey } from "../Keys.ts"
import { fields, localDate, show } from "../Output.ts"
import { svc } from "../Root.ts"
import { authenticated, authenticatedAs } from "../Session.ts"

/** What the API answers of a payout address, as people read it. */
const view = (data: {
  readonly address: string | null
  readonly paid_to: string
  readonly wallet: string
  readonly change_nanoid: string | null
  readonly changed_at: string | null
}) =>
  fields([
    ["Payout address", data.address ?? "- (your svc account)"],
    ["Paid to", data.paid_to || "-"],
    ["Wallet", data.wallet],
    ["Last change", data.change_nanoid === null ? "-" : `${data.change_nanoid}, ${localDate(data.changed_at ?? "")}`]
  ])

const show_ = Command.make(
  "show",
  {},
  Effect.fn("svc.me.payoutAddress.show")(function* () {
    const flags = yield* svc
    const { client } = yield* authenticated(flags)
    const result = yield* answer(flags.url, client.payoutAddresses.get({ responseMode: "decoded-and-response" }))
    yield* show(flags.json, result, ({ data }) => view(data))
  })
).pipe(Command.withDescription("Show where your teams pay you"))

/** The new address's key: `--address-key-file`, else `SVC_PAYOUT_PRIVATE_KEY`. */
const addressKey = (file: Option.Option<string>) => {
  if (Option.isSome(file)) return Effect.map(keyFromKeystore(file.value), (key) => key.privateKey)
  const value = process.env.SVC_PAYOUT_PRIVATE_KEY?.trim() ?? ""
  if (!/^(0x)?[0-9a-fA-F]{64}$/.test(value)) {
    return Effect.fail(
      new CliFailure({
        message: "the new address must sign: set SVC_PAYOUT_PRIVATE_KEY or pass --address-key-file with its keystore"
      })
    )
  }
  return Effect.succeed(Redacted.make((value.startsWith("0x") ? value : `0x${value}`).toLowerCase() as Hex))
}

const set = Command.make(
  "set",
  {
    address: Flag.String("address").pipe(Flag.withDescription("The address to be paid at (0x...)")),
    addressKeyFile: Flag.String("address-key-file").pipe(
      Flag.withDescription("Encrypted keystore of that address (else SVC_PAYOUT_PRIVATE_KEY)"),
      Flag.optional
    )
  },
  Effect.fn("svc.me.payoutAddress.set")(function* (input) {
    const flags = yield* svc
    if (!/^0x[0-9a-fA-F]{40}$/.test(input.address)) {
      return yield* badArgument("--address", "expected an address: 0x followed by 40 hex characters")
    }
    const payoutKey = yield* addressKey(input.addressKeyFile)
    if (privateKeyToAccount(Redacted.value(payoutKey)).address.toLowerCase() !== input.address.toLowerCase()) {
      return yield* badArgument("--address", "the address key given is not this address's")
    }
    const address = input.address.toLowerCase() as WalletAddress
    const wallet = yield* requireKey(flags.keyFile)
    const { client } = yield* authenticatedAs(flags, wallet)
    const issued = yield* answer(
      flags.url,
      client.payoutAddresses.issueProof({ payload: { address }, responseMode: "decoded-and-response" })
    )
    const bundle = issued.value.data
    const result = yield* answer(
      flags.url,
      client.payoutAddresses.set({
        payload: {
          address,
          typed_data: bundle.typed_data,
          address_signature: yield* signTypedDataBundle(bundle, Redacted.value(payoutKey)),
          wallet_signature: yield* signTypedDataBundle(bundle, Redacted.value(wallet.privateKey))
        },
        responseMode: "decoded-and-response"
      })
    )
    yield* show(flags.json, result, ({ data }) => `${view(data)}\nYou get an e-mail to report it if it was not you.`)
  })
).pipe(
  Command.withDescription(
    "Be paid at another address: signed here by your wallet and by that address; payments issued from now on go there"
  )
)

/** `svc me`. */
export const me = Command.make("me").pipe(
  Command.withDescription("You: where your teams pay you"),
  Command.withSubcommands([
    Command.make("payout-address").pipe(
      Command.withDescription("Where your teams pay you (the API's withdraw account)"),
      Command.withSubcommands([show_, set])
    )
  ])
)
