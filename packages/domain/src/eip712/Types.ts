/**
 * The EIP-712 vocabulary shared by the domain's builders and the on-chain `SvcAccountForwarder`.
 *
 * Every request has the same envelope: `from` is the wallet that signs, `to` is the svc account the request
 * acts on, `salt` is a uint256 that the forwarder accepts once (the service hands out the bits of a random word in
 * turn: `makeSalt`), `expires` is a unix time in seconds.
 * Changing anything here changes every digest: the contracts hash the same type strings.
 */

/** The EIP-712 domain name and version of the forwarder (DESIGN §5). */
export const ForwarderDomain = { name: "SvcAccountForwarder", version: "1.0.0" } as const

/** What a payment entry does once the forwarder calls the account. */
export const PayType = {
  /** Transfer the amount to `recipient` now. */
  Immediate: 1,
  /** Register an intent that anyone may execute between `payAtTime` and `payAtTime + validMinutes`. */
  Intent: 2,
  /** Move the amount into the e-mail escrow; `data` is the claim id, keccak256 of the normalised e-mail. */
  Escrow: 3
} as const
export type PayType = (typeof PayType)[keyof typeof PayType]

/** One payment, as signed: all fields are decimal or hex strings in the JSON bundle. */
export const SvcPaymentType = [
  { name: "id", type: "bytes32" },
  { name: "groupID", type: "bytes32" },
  { name: "payAtTime", type: "uint256" },
  { name: "validMinutes", type: "uint256" },
  { name: "payType", type: "uint256" },
  { name: "token", type: "address" },
  { name: "recipient", type: "address" },
  { name: "amount", type: "uint256" },
  { name: "data", type: "bytes" }
] as const

const envelope = (data: string) =>
  [
    { name: "from", type: "address" },
    { name: "to", type: "address" },
    { name: "salt", type: "uint256" },
    { name: "expires", type: "uint256" },
    { name: "data", type: data }
  ] as const

/** Types of a batch of payments (primary type `CreatePaymentsForwardRequest`). */
export const PaymentsRequestTypes = {
  CreatePaymentsForwardRequest: envelope("SvcPaymentsRequest"),
  SvcPaymentsRequest: [{ name: "payments", type: "SvcPayment[]" }],
  SvcPayment: SvcPaymentType
} as const

/** Types of a single instant payment (primary type `CreatePaymentForwardRequest`). */
export const PaymentRequestTypes = {
  CreatePaymentForwardRequest: envelope("SvcPayment"),
  SvcPayment: SvcPaymentType
} as const

/** Types of manager role grants (primary type `SetRolesForwardRequest`): each entry grants `role` to `account`. */
export const RolesRequestTypes = {
  SetRolesForwardRequest: envelope("SvcRoleGrant[]"),
  SvcRoleGrant: [
    { name: "role", type: "string" },
    { name: "account", type: "address" }
  ]
} as const

/**
 * Types of a payout address proof (primary type `SetPayoutAddressRequest`, decision 0108): the member's wallet (`from`)
 * and the new `payoutAddress` both sign that the user `user`, whose svc account is `to`, is paid at that address.
 * It is checked by the service and never sent to the chain: no contract hashes this type.
 */
export const PayoutAddressRequestTypes = {
  SetPayoutAddressRequest: envelope("SvcPayoutAddress"),
  SvcPayoutAddress: [
    { name: "user", type: "string" },
    { name: "payoutAddress", type: "address" }
  ]
} as const
