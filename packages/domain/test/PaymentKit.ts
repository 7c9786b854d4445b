/** Paying members of a team on the embedded chain, as a client would: issue, sign with the admin's key, execute. */
import { Effect, Schema } from "effect"
import type { Hex } from "viem"
import type { Uint256String } from "../src/Evm.ts"
import type { IssuedTypedData } from "../src/eip712/IssuedRequestStore.ts"
import { paymentsTypedData } from "../src/eip712/TypedDataBuilder.ts"
import { signTypedDataBundle } from "../src/eip712/TypedDataSignature.ts"
import type { PaymentGroupId, TeamId, UserId } from "../src/Ids.ts"
import { executeSignedPayments } from "../src/payment/ExecuteSignedPayments.ts"
import { issuePayments } from "../src/payment/IssuePayments.ts"
import { CreatePaymentsRequest, ExecutePaymentsRequest } from "../src/payment/PaymentRequests.ts"
import type { Caller } from "../src/user/Caller.ts"

/** A batch body paying `cents` to each of `members`, now or (`pay_at_time`) later. */
export const paymentsBody = (team: TeamId, members: ReadonlyArray<UserId>, cents: number, later?: number) =>
  Schema.decodeUnknownSync(CreatePaymentsRequest)({
    from: team,
    to: members.map((to) => ({ to, amount_cents: cents, currency_symbol: "USD", invoice_description: "test" })),
    pay_now: later === undefined,
    ...(later === undefined ? {} : { pay_at_time: later })
  })

/** Issues the batch and signs it with `key`, as `admin`: the PUT body that executes it. */
export const signPayments = (admin: Caller, key: Hex, body: ReturnType<typeof paymentsBody>) =>
  Effect.gen(function* () {
    const bundle = yield* issuePayments(admin, body)
    const signature = yield* signTypedDataBundle(bundle, key)
    return Schema.decodeUnknownSync(ExecutePaymentsRequest)({
      ...Schema.encodeSync(CreatePaymentsRequest)(body),
      signer: admin.wallet,
      typed_data: bundle.typed_data,
      signature
    })
  })

/** Issues the batch, signs it with `key` and executes it, as `admin`; answers the execution. */
export const pay = (admin: Caller, key: Hex, body: ReturnType<typeof paymentsBody>) =>
  Effect.flatMap(signPayments(admin, key, body), (signed) => executeSignedPayments(admin, signed))

/**
 * What issuing stores for `salt`: a batch of `team` for its admin, whose typed data expires at `expires` (unix
 * seconds). Without a chain: the content besides the expiry is the shape issuing writes, with placeholder addresses.
 */
export const issuedBatch = (team: TeamId, admin: Caller, salt: string, expires: number): IssuedTypedData => ({
  kind: "batch",
  salt: salt as Uint256String,
  team,
  issuedTo: admin.nanoid,
  signer: admin.wallet,
  bundle: paymentsTypedData(
    { chainId: 42161, verifyingContract: `0x${"1".repeat(40)}` },
    { from: admin.wallet, to: `0x${"3".repeat(40)}`, salt, expires: String(expires) },
    [
      {
        id: `0x${"4".repeat(64)}`,
        groupID: `0x${"5".repeat(64)}`,
        payAtTime: "0",
        validMinutes: "1440",
        payType: "1",
        token: `0x${"6".repeat(40)}`,
        recipient: `0x${"7".repeat(40)}`,
        amount: "1000000",
        data: "0x"
      }
    ]
  ),
  request: {
    body: { from: team, to: [], pay_now: true },
    group_nanoid: "pg-000000000001" as PaymentGroupId,
    account: `0x${"3".repeat(40)}`,
    payments: []
  }
})
