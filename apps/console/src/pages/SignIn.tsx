/**
 * Sign-in: connect a browser wallet (one of those the page found; several are listed to choose from), then sign the
 * API's sign-in message (SIWE) in it. Nothing is sent but the signature; the key stays in the wallet.
 */
import { useState } from "react"
import { useSession } from "../session/Session.tsx"
import { useWallets, type Wallet } from "../session/Wallets.ts"
import { Button } from "../ui/Controls.tsx"
import { shortHex } from "../ui/Format.tsx"
import { ErrorNotice, Notice } from "../ui/Notice.tsx"

const WalletChoice = ({
  wallets,
  chosen,
  choose
}: {
  readonly wallets: ReadonlyArray<Wallet>
  readonly chosen: string | undefined
  readonly choose: (id: string) => void
}) => (
  <fieldset className="stack">
    <legend>Choose a wallet</legend>
    {wallets.map((wallet) => (
      <label key={wallet.id} className="wallet-choice">
        <input type="radio" name="wallet" checked={wallet.id === chosen} onChange={() => choose(wallet.id)} />
        {wallet.icon === undefined ? null : <img src={wallet.icon} alt="" />}
        {wallet.name}
      </label>
    ))}
  </fieldset>
)

export const SignInPage = () => {
  const { address, connect, signIn } = useSession()
  const wallets = useWallets()
  const [chosen, setChosen] = useState<string | undefined>(undefined)
  const [busy, setBusy] = useState<"connect" | "sign" | undefined>(undefined)
  const [error, setError] = useState<unknown>(undefined)
  const wallet = wallets.find((candidate) => candidate.id === chosen) ?? wallets[0]
  const run = (step: "connect" | "sign", action: () => Promise<void>) => async () => {
    setBusy(step)
    setError(undefined)
    try {
      await action()
    } catch (failure) {
      setError(failure)
    } finally {
      setBusy(undefined)
    }
  }
  return (
    <main className="signin" id="main">
      <div className="card">
        <div className="brand">
          <span className="brand-mark" aria-hidden="true">
            svc
          </span>
          <small>Console</small>
        </div>
        <div className="stack">
          <h1>Sign in</h1>
          <p className="muted">
            Pay your team, invite people and watch your webhooks. Your browser wallet signs in and approves each
            payment; its key never leaves it.
          </p>
        </div>
        {wallets.length === 0 ? (
          <Notice tone="warn">
            No browser wallet found. Install one (an EIP-1193 wallet such as MetaMask or Rabby), then reload this page.
          </Notice>
        ) : wallets.length > 1 ? (
          <WalletChoice wallets={wallets} chosen={wallet?.id} choose={setChosen} />
        ) : null}
        {address === undefined ? null : (
          <p>
            Connected: <span className="mono">{shortHex(address)}</span>
          </p>
        )}
        {error === undefined ? null : <ErrorNotice error={error} />}
        <div className="actions">
          <Button
            variant={address === undefined ? "primary" : undefined}
            busy={busy === "connect"}
            disabled={wallet === undefined}
            onClick={run("connect", () => (wallet === undefined ? Promise.resolve() : connect(wallet)))}
          >
            Connect wallet
          </Button>
          <Button
            variant="primary"
            busy={busy === "sign"}
            disabled={address === undefined}
            onClick={run("sign", signIn)}
          >
            Sign in
          </Button>
        </div>
        {busy === "sign" ? <p className="muted small">Sign the message in your wallet to continue.</p> : null}
      </div>
    </main>
  )
}
