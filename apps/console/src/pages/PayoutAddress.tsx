/**
 * Where the signed-in member is paid (decision 0108): their payout address, or their own svc account, and a form to
 * set another. The wallet signs twice: as that address (it must hold its account) and as the member. The member gets
 * an e-mail with a link to report a change that was not theirs; each of their teams is told.
 */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query"
import { type FormEvent, useState } from "react"
import { keys } from "../api/Queries.ts"
import { useClient, useSession } from "../session/Session.tsx"
import { Button, Field } from "../ui/Controls.tsx"
import { ErrorNotice, Loading, Notice } from "../ui/Notice.tsx"

const addressPattern = /^0x[0-9a-fA-F]{40}$/

export const PayoutAddressCard = () => {
  const client = useClient()
  const session = useSession()
  const queryClient = useQueryClient()
  const [address, setAddress] = useState("")
  const current = useQuery({
    queryKey: keys.payoutAddress,
    queryFn: async () => (await client.payoutAddresses.get()).data
  })
  const change = useMutation({
    mutationFn: () => {
      const signer = session.accountOf(address.toLowerCase() as `0x${string}`)
      if (signer === undefined) throw new Error("Connect the wallet that holds that address's account")
      return client.payoutAddresses.change({ address, addressSigner: signer })
    },
    onSuccess: async () => {
      setAddress("")
      await queryClient.invalidateQueries({ queryKey: keys.payoutAddress })
    }
  })
  const problem = address === "" || addressPattern.test(address) ? undefined : "Expected 0x followed by 40 hex digits"
  const submit = (event: FormEvent) => {
    event.preventDefault()
    if (problem === undefined && address !== "") change.mutate()
  }
  return (
    <section className="card card-pad stack" aria-labelledby="payout-heading">
      <h2 id="payout-heading">Where you are paid</h2>
      {current.isPending ? <Loading what="your payout address" /> : null}
      {current.isError ? <ErrorNotice error={current.error} /> : null}
      {current.data === undefined ? null : (
        <dl className="facts">
          <dt>Payout address</dt>
          <dd className="mono">{current.data.address ?? "None: your svc account"}</dd>
          <dt>Paid to</dt>
          <dd className="mono">{current.data.paid_to || "—"}</dd>
        </dl>
      )}
      <form className="stack" onSubmit={submit}>
        <Field
          label="New payout address"
          hint="Your wallet signs twice: as this address (its account must be in this wallet), then as you."
          problem={problem}
        >
          {(props) => (
            <input
              {...props}
              className="mono"
              spellCheck={false}
              autoComplete="off"
              value={address}
              onChange={(e) => setAddress(e.target.value.trim())}
            />
          )}
        </Field>
        {change.isError ? <ErrorNotice error={change.error} /> : null}
        {change.isSuccess ? (
          <Notice tone="success">
            Payments issued from now on go there. You get an e-mail to report it if it was not you.
          </Notice>
        ) : null}
        <div className="actions">
          <Button
            type="submit"
            variant="primary"
            busy={change.isPending}
            disabled={address === "" || problem !== undefined}
          >
            Set payout address
          </Button>
        </div>
      </form>
    </section>
  )
}
