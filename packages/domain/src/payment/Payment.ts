/**
 * A payment as the domain records it, and the conversions between API amounts and token amounts.
 */
import { Schema } from "effect"
import { keccak256, toBytes } from "viem"
import { Email, normalizeEmail } from "../Email.ts"
import { Address, Bytes32, HexBytes, Uint256String } from "../Evm.ts"
import { PayTypeString } from "../eip712/TypedData.ts"
import { InvoiceId, PaymentGroupId, PaymentId, PayScheduleId, TeamId, UserId } from "../Ids.ts"
import { IsoTimestamp } from "../Timestamp.ts"
import { PaymentMachine } from "./PaymentMachine.ts"

/** Decimals of USDC, the token every `USD` amount settles in. */
export const usdcDecimals = 6

/** Token units per cent for a token with `decimals` (USDC: 10^4). */
export const unitsPerCent = (decimals: number = usdcDecimals): bigint => 10n ** BigInt(decimals - 2)

/** The token amount (smallest unit, decimal string) of an amount in cents: USDC `amount = amount_cents * 10^4`. */
export const tokenAmountOf = (amountCents: number, decimals: number = usdcDecimals): Uint256String =>
  (BigInt(amountCents) * unitsPerCent(decimals)).toString(10)

/** The amount in cents of a token amount, rounded down to the cent. */
export const amountCentsOf = (tokenAmount: Uint256String, decimals: number = usdcDecimals): number =>
  Number(BigInt(tokenAmount) / unitsPerCent(decimals))

/** The on-chain id (`id`, `groupID`) of a payment or group: keccak256 of its nanoid, so either finds the other. */
export const onchainIdOf = (nanoid: string): Bytes32 => keccak256(toBytes(nanoid))

/** The escrow claim id of an e-mail recipient: keccak256 of the trimmed, lower-cased address. */
export const claimIdOf = (email: string): Bytes32 => keccak256(toBytes(normalizeEmail(email)))

/** The only currency the API takes (SPEC §4.5 to 4.7). */
export const CurrencySymbol = Schema.Literal("USD")
/** The only network (SPEC §1). */
export const Network = Schema.Literal("arbitrum")

/** Invoice details a payer attaches to a payment (SPEC §2.3 `invoice`, §4.5 `payment_data`). */
export const InvoiceDetails = Schema.Struct({
  invoice_description: Schema.String,
  role_description: Schema.String,
  services_description: Schema.String,
  payment_details: Schema.String,
  external_sow_url: Schema.String,
  svc_sow: Schema.Boolean,
  reason_id: Schema.optionalKey(Schema.Int)
})
export type InvoiceDetails = typeof InvoiceDetails.Type

/** The invoice of a payment described by `description`; everything else empty unless given. */
export const invoiceOf = (description: string, extra: Partial<InvoiceDetails> = {}): InvoiceDetails => ({
  invoice_description: description,
  role_description: "",
  services_description: "",
  payment_details: "",
  external_sow_url: "",
  svc_sow: false,
  ...extra
})

/** A payment as recorded: who pays whom, how much, its signed entry and where it is in its life. */
export const Payment = Schema.Struct({
  nanoid: PaymentId,
  group_nanoid: PaymentGroupId,
  /** The invoice the payment pays: a member's (`pays_invoice`), or one synthesized for it (decision 0106). */
  invoice_nanoid: InvoiceId,
  /** It pays the member's invoice `invoice_nanoid`; absent for a payment made without one. */
  pays_invoice: Schema.optionalKey(Schema.Literal(true)),
  team_nanoid: TeamId,
  /** The user whose wallet signed the request. */
  payer_nanoid: UserId,
  /** A member recipient; absent for an e-mail (escrow) recipient. */
  recipient_nanoid: Schema.optionalKey(UserId),
  recipient_email: Schema.optionalKey(Email),
  state: PaymentMachine.State,
  amount_cents: Schema.Int,
  currency_symbol: CurrencySymbol,
  token: Address,
  token_amount: Uint256String,
  token_decimals: Schema.Int,
  pay_type: PayTypeString,
  /** Unix seconds from which it may execute. */
  pay_at_time: Schema.Int,
  valid_minutes: Schema.Int,
  onchain_id: Bytes32,
  group_onchain_id: Bytes32,
  /** The signed entry's `data` (escrow claim id, or `0x`). */
  data: HexBytes,
  /** The salt of the signed request that created it. */
  salt: Uint256String,
  invoice: InvoiceDetails,
  creation_transaction: Schema.optionalKey(Schema.String),
  process_transaction: Schema.optionalKey(Schema.String),
  /** For an instalment of a pay schedule: the schedule, and which instalment (from 0). */
  schedule_nanoid: Schema.optionalKey(PayScheduleId),
  instalment: Schema.optionalKey(Schema.Int),
  created_at: IsoTimestamp,
  updated_at: IsoTimestamp
})
export type Payment = typeof Payment.Type
