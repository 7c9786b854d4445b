/**
 * Payout addresses (issue 39, decision 0108; the API says "withdraw account"): where a member is paid instead of their
 * own svc account. An address is set only with a proof both it and the member's wallet signed, is shown beside the
 * wallet, and each change can be reported as not the member's own from the mail that announces it.
 */
import { Schema } from "effect"
import { type Address, Uint256String, WalletAddress } from "../Evm.ts"
import { PayoutAddressTypedDataBundle, PayoutAddressTypedDataMessage } from "../eip712/TypedData.ts"
import { PayoutChangeId, UserId } from "../Ids.ts"

/** The address zero: tokens sent there are gone. */
const zeroAddress = /^0x0{40}$/u

/** A payout address as a request gives it: any address but zero, kept lower-cased. */
export const PayoutAddressValue = WalletAddress.pipe(
  Schema.check(
    Schema.makeFilter((address: string) => !zeroAddress.test(address), {
      expected: "an address other than 0x0000000000000000000000000000000000000000",
      message: "Expected an address other than the zero address"
    })
  )
)

/**
 * A signature of the proof: 65 bytes from a key, longer from a contract wallet (ERC-1271, ERC-6492), at most 4096
 * bytes as sign-in takes them.
 */
export const ProofSignature = Schema.String.pipe(
  Schema.refine((value): value is `0x${string}` => /^0x(?:[a-fA-F0-9]{2}){1,4096}$/u.test(value), {
    expected: "a signature: 0x followed by 1 to 4096 hex bytes",
    message: "Expected a signature: 0x followed by 1 to 4096 hex bytes",
    toJsonSchema: () => ({ pattern: "^0x(?:[a-fA-F0-9]{2}){1,4096}$" })
  })
)

/** The proof issued to a member for an address (POST /v2/user/withdraw_account), until it is signed or replaced. */
export const IssuedPayoutProof = Schema.Struct({
  user_nanoid: UserId,
  salt: Uint256String,
  address: WalletAddress,
  bundle: PayoutAddressTypedDataBundle
})
export type IssuedPayoutProof = typeof IssuedPayoutProof.Type

/**
 * One change of a user's payout address, kept: the address before and after (`null`: their svc account), the wallet
 * and proof that made it, and the report link's token hash; `reported_at` once reported as not the member's own.
 */
export const PayoutChange = Schema.Struct({
  nanoid: PayoutChangeId,
  user_nanoid: UserId,
  address: WalletAddress,
  previous_address: Schema.NullOr(WalletAddress),
  wallet: WalletAddress,
  salt: Uint256String,
  address_signature: ProofSignature,
  wallet_signature: ProofSignature,
  report_token_hash: Schema.String,
  created_at: Schema.String,
  reported_at: Schema.NullOr(Schema.String)
})
export type PayoutChange = typeof PayoutChange.Type

/** How long a change's report link works: 30 days. */
export const reportWindowMillis = 30 * 24 * 60 * 60 * 1000

/** `POST /v2/user/withdraw_account`: the address to be paid at, for a proof to sign. */
export const IssuePayoutProofBody = Schema.Struct({ address: PayoutAddressValue })
export type IssuePayoutProofBody = typeof IssuePayoutProofBody.Type

/**
 * `PUT /v2/user/withdraw_account`: the address, the issued `typed_data`, and two signatures of it: one by the address
 * (EIP-712, or ERC-1271 for a contract wallet) and one by the wallet of the session.
 */
export const SetPayoutAddressBody = Schema.Struct({
  address: PayoutAddressValue,
  typed_data: PayoutAddressTypedDataMessage,
  address_signature: ProofSignature,
  wallet_signature: ProofSignature
})
export type SetPayoutAddressBody = typeof SetPayoutAddressBody.Type

/** `POST /v2/user/withdraw_account/report`: the change and the token of the mail's link. */
export const ReportPayoutChangeBody = Schema.Struct({
  change_nanoid: PayoutChangeId,
  token: Schema.String.pipe(Schema.check(Schema.isPattern(/^[0-9a-f]{64}$/u, { message: "Expected the link's token" })))
})
export type ReportPayoutChangeBody = typeof ReportPayoutChangeBody.Type

/**
 * The caller's payout address (`GET` and `PUT /v2/user/withdraw_account`): where teams pay them (`paid_to`: the payout
 * address, or their svc account without one), and the last change.
 */
export const PayoutAddressView = Schema.Struct({
  user_nanoid: Schema.String,
  wallet: Schema.String,
  address: Schema.NullOr(Schema.String),
  svc_account: Schema.String,
  paid_to: Schema.String,
  change_nanoid: Schema.NullOr(Schema.String),
  changed_at: Schema.NullOr(Schema.String)
})
export type PayoutAddressView = typeof PayoutAddressView.Type

/** What a report answers: the change reported, and the address the member is paid at again. */
export const ReportedPayoutChange = Schema.Struct({
  change_nanoid: Schema.String,
  reported: Schema.Literal(true),
  address: Schema.NullOr(Schema.String)
})
export type ReportedPayoutChange = typeof ReportedPayoutChange.Type

/** An address as an API answer shows it: `null` for none. */
export const addressOrNull = (address: Address | undefined | null): string | null => address ?? null
