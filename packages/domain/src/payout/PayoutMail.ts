/** The notice a payout address change sends the member, with the link to report it was not them (decision 0108). */
import type { Mail } from "../mail/Mail.ts"
import { displayNameOf, type User } from "../user/User.ts"
import type { PayoutChange } from "./PayoutAddress.ts"

/** The page a change's report link opens. */
export const reportLinkOf = (publicBaseUrl: string, change: PayoutChange, token: string) =>
  `${publicBaseUrl}/withdraw-account/report?change=${change.nanoid}&token=${token}`

/** The notice of `change` to `user` (who has an e-mail), with its single-use report link. */
export const payoutChangeMailOf = (options: {
  readonly id: string
  readonly user: User
  readonly change: PayoutChange
  readonly token: string
  readonly publicBaseUrl: string
}): Mail => {
  const { user, change } = options
  const name = displayNameOf(user)
  const before = change.previous_address ?? "your own svc account"
  return {
    id: options.id,
    to: user.email,
    subject: "Your payout address on svc changed",
    text: [
      name === "" ? "Hello," : `Hello ${name},`,
      "",
      `The address your teams pay you at changed to ${change.address} (change ${change.nanoid}, ${change.created_at}).`,
      `It was signed by your wallet ${change.wallet} and by that address. Payments issued from now on go there;`,
      "payments already signed keep the address they were signed with.",
      "",
      `If this was not you, report it: ${reportLinkOf(options.publicBaseUrl, change, options.token)}`,
      "",
      `Reporting it puts back the address you were paid at before (${before}) and tells your teams.`,
      "Whoever made this change could sign with your wallet: move your funds to a wallet only you hold.",
      "The link works once, for 30 days."
    ].join("\n")
  }
}
