/**
 * `PUT /v2/user/withdraw_account` (decision 0108): the caller's payout address changes once the proof issued to them
 * is signed by the address (EIP-712, or ERC-1271 for a contract wallet) and by the wallet of their session, so a stolen
 * access token alone cannot redirect their pay. The change, the member's notice with its report link, one
 * `withdraw_account.updated` per team of theirs and the duplicate pairs the address reveals commit in one unit.
 */
import { DateTime, Effect } from "effect"
import { ChainGateway } from "../chain/ChainGateway.ts"
import { AlreadyClaimed, TypedDataNotFound } from "../eip712/IssuedRequestStore.ts"
import { TypedDataMismatch } from "../eip712/TypedDataError.ts"
import { checkTypedDataExpiry, ensureSameTypedData, verifyDigestSignature } from "../eip712/TypedDataSignature.ts"
import { makeUuid } from "../event/EventEnvelope.ts"
import { EventOutbox } from "../event/EventOutbox.ts"
import { IdGenerator } from "../Ids.ts"
import { InviteSettings } from "../invite/InviteSettings.ts"
import { makeInviteToken } from "../invite/InviteToken.ts"
import { MailOutbox } from "../mail/MailOutbox.ts"
import { UnitOfWork } from "../UnitOfWork.ts"
import type { Caller } from "../user/Caller.ts"
import { UserNotFound } from "../user/UserNotFound.ts"
import { UserRepository } from "../user/UserRepository.ts"
import { blockNewerDuplicates, recordDuplicates } from "./DetectDuplicates.ts"
import { payoutAddressViewOf } from "./GetPayoutAddress.ts"
import type { PayoutChange, SetPayoutAddressBody } from "./PayoutAddress.ts"
import { PayoutAddressStore } from "./PayoutAddressStore.ts"
import { payoutChangeEventsOf } from "./PayoutEvents.ts"
import { payoutChangeMailOf } from "./PayoutMail.ts"

/**
 * Sets the caller's payout address from the signed proof. Checks run cheapest first, the proof is taken last, once:
 * a refused request may be signed again and retried until the proof expires.
 *
 * @example
 * const view = yield* setPayoutAddress(caller, { address, typed_data: bundle.typed_data, address_signature, wallet_signature })
 */
export const setPayoutAddress = Effect.fn("PayoutAddresses.set")(function* (
  caller: Caller,
  body: SetPayoutAddressBody
) {
  yield* ChainGateway.required
  const store = yield* PayoutAddressStore
  const issued = yield* store.findProof(caller.nanoid)
  if (issued._tag === "None" || issued.value.salt !== body.typed_data.salt) {
    return yield* new TypedDataNotFound({ salt: body.typed_data.salt })
  }
  const proof = issued.value
  const digest = yield* ensureSameTypedData(proof.bundle, body.typed_data)
  if (body.address !== proof.address) {
    return yield* new TypedDataMismatch({ expected: proof.address, received: body.address })
  }
  yield* verifyDigestSignature({ digest, signer: proof.address, signature: body.address_signature })
  yield* verifyDigestSignature({ digest, signer: caller.wallet, signature: body.wallet_signature })
  yield* checkTypedDataExpiry(proof.bundle.typed_data)
  const user = yield* UserRepository.use((u) => u.findById(caller.nanoid))
  if (user._tag === "None") return yield* new UserNotFound({ user: caller.nanoid })
  const now = DateTime.formatIso(yield* DateTime.now)
  const { token, hash } = yield* makeInviteToken
  const previous = user.value.payout_address ?? null
  const change: PayoutChange = {
    nanoid: yield* IdGenerator.use((ids) => ids.make("payoutChange")),
    user_nanoid: caller.nanoid,
    address: proof.address,
    previous_address: previous,
    wallet: caller.wallet,
    salt: proof.salt,
    address_signature: body.address_signature,
    wallet_signature: body.wallet_signature,
    report_token_hash: hash,
    created_at: now,
    reported_at: null
  }
  const events = yield* payoutChangeEventsOf(change, "set", now)
  const publicBaseUrl = yield* InviteSettings.useSync((settings) => settings.publicBaseUrl)
  const mails =
    user.value.email === ""
      ? []
      : [payoutChangeMailOf({ id: yield* makeUuid, user: user.value, change, token, publicBaseUrl })]
  const { updated, pairs } = yield* UnitOfWork.use((unit) =>
    unit.run(
      Effect.gen(function* () {
        if (!(yield* store.consumeProof(caller.nanoid, proof.salt)))
          return yield* new AlreadyClaimed({ salt: proof.salt })
        const updated = yield* UserRepository.use((u) => u.setPayoutAddress(caller.nanoid, previous, proof.address))
        yield* store.recordChange(change)
        if (mails.length > 0) yield* MailOutbox.use((outbox) => outbox.enqueue(mails))
        yield* EventOutbox.use((outbox) => outbox.append(events))
        return { updated, pairs: yield* recordDuplicates(updated, proof.address) }
      })
    )
  )
  yield* blockNewerDuplicates(pairs)
  return yield* payoutAddressViewOf(updated, change)
})
