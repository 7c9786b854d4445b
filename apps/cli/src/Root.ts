/**
 * The root `svc` command and the flags every command shares: where the API is, how to print, which key signs.
 */
import type { Option } from "effect"
import { Command, Flag } from "effect/cli"

const url = Flag.String("url").pipe(
  Flag.withDescription("Base URL of the svc API (env SVC_URL; default http://127.0.0.1:3000)"),
  Flag.withDefault(process.env.SVC_URL ?? "http://127.0.0.1:3000")
)
const json = Flag.Boolean("json").pipe(
  Flag.withDescription("Print the API's JSON exactly as it answered, instead of a table"),
  Flag.withDefault(false)
)
const keyFile = Flag.String("key-file").pipe(
  Flag.withDescription(
    "Encrypted JSON keystore (ethers, foundry) holding the wallet key; password from SVC_KEY_PASSWORD or prompted. " +
      "Without it the key comes from SVC_PRIVATE_KEY"
  ),
  Flag.optional
)

/** The root command; its flags are shared by every subcommand. */
export const svc = Command.make("svc").pipe(
  Command.withSharedFlags({ url, json, keyFile }),
  Command.withDescription(
    "Team payments in USDC: sign in with a wallet, run any operation of the svc API, sign payments locally. " +
      "The private key never leaves this machine."
  )
)

/** The shared flags as a command's handler reads them. */
export interface RootFlags {
  readonly url: string
  readonly json: boolean
  readonly keyFile: Option.Option<string>
}
