/**
 * `svc login`, `svc logout`, `svc whoami`, `svc health`.
 */
import { Clock, Console, Effect, Option } from "effect"
import { Command, Flag } from "effect/cli"
import { answer } from "../Api.ts"
import { credentialsFile, loadSession, removeSessions } from "../Credentials.ts"
import { requireKey, walletOfKeyAtHand } from "../Keys.ts"
import { fields, localDate, show } from "../Output.ts"
import { svc } from "../Root.ts"
import { clientOf, signIn } from "../Session.ts"

/** `svc login`: SIWE with the wallet key; the JWT is kept for the URL. */
export const login = Command.make(
  "login",
  {},
  Effect.fn("svc.login")(function* () {
    const flags = yield* svc
    const key = yield* requireKey(flags.keyFile)
    const { session, verified } = yield* signIn(flags, key, { current: true })
    if (flags.json) return yield* Console.log(verified.text)
    yield* Console.log(
      fields([
        ["Signed in", flags.url],
        ["Wallet", session.wallet],
        ["User", session.user],
        ["Expires", localDate(session.expires)],
        ["Kept in", credentialsFile()]
      ])
    )
  })
).pipe(
  Command.withDescription(
    "Sign in with the wallet key (SVC_PRIVATE_KEY, or --key-file and SVC_KEY_PASSWORD or a prompt): the API's SIWE " +
      "message is signed here and the JWT is kept in $XDG_CONFIG_HOME/svc/ (mode 0600). The key never leaves this machine."
  ),
  Command.withExamples([
    { command: "SVC_PRIVATE_KEY=0x... svc login", description: "Sign in with a raw key from the environment" },
    { command: "svc --key-file ~/.foundry/keystores/finance login", description: "Sign in with an encrypted keystore" }
  ])
)

/** `svc logout`: forgets the sessions for the URL; `--all`, every session kept. */
export const logout = Command.make(
  "logout",
  {
    all: Flag.Boolean("all").pipe(
      Flag.withDescription("Forget every session kept, for every API URL"),
      Flag.withDefault(false)
    )
  },
  Effect.fn("svc.logout")(function* ({ all }) {
    const flags = yield* svc
    const removed = yield* removeSessions(flags.url, all)
    if (flags.json) {
      return yield* Console.log(
        JSON.stringify({ signed_out: removed > 0, sessions: removed, url: all ? null : flags.url })
      )
    }
    if (all) return yield* Console.log(removed > 0 ? `Signed out of ${removed} session(s)` : "No session was kept")
    yield* Console.log(removed > 0 ? `Signed out of ${flags.url}` : `Not signed in to ${flags.url}`)
  })
).pipe(Command.withDescription("Forget the kept sessions for the API URL (--all: for every URL)"))

/** `svc whoami`: the kept session, read locally. */
export const whoami = Command.make(
  "whoami",
  {},
  Effect.fn("svc.whoami")(function* () {
    const flags = yield* svc
    // The wallet of the key at hand, as the other commands would act; else `svc login`'s.
    const named = yield* walletOfKeyAtHand(flags.keyFile)
    const session = yield* loadSession(flags.url, Option.getOrUndefined(named))
    const now = Math.floor((yield* Clock.currentTimeMillis) / 1000)
    if (session === undefined) {
      if (flags.json) return yield* Console.log(JSON.stringify({ signed_in: false, url: flags.url }))
      return yield* Console.log(`Not signed in to ${flags.url}: run \`svc login\``)
    }
    const expired = session.expires <= now
    if (flags.json) {
      return yield* Console.log(
        JSON.stringify({
          signed_in: !expired,
          url: flags.url,
          wallet: session.wallet,
          user_nanoid: session.user,
          expires_at: new Date(session.expires * 1000).toISOString()
        })
      )
    }
    yield* Console.log(
      fields([
        ["API", flags.url],
        ["Wallet", session.wallet],
        ["User", session.user],
        ["Expires", `${localDate(session.expires)}${expired ? " (expired: signs in again when a key is at hand)" : ""}`]
      ])
    )
  })
).pipe(Command.withDescription("Show who is signed in to the API URL"))

/** `svc health`: whether the API answers. */
export const health = Command.make(
  "health",
  {},
  Effect.fn("svc.health")(function* () {
    const flags = yield* svc
    const client = yield* clientOf(flags)
    const result = yield* answer(flags.url, client.health({ responseMode: "decoded-and-response" }))
    yield* show(flags.json, result, (value) => `${flags.url}: ${value.data.status}`)
  })
).pipe(Command.withDescription("Check that the API serves"))
