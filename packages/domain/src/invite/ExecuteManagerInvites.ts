/**
 * Executing signed manager grants (SPEC §4.9): granted on chain through the forwarder once per salt, with the same
 * claim, wait, replay and recovery as payments (`executeOnce`); each wallet then becomes a member with its role
 * (`ExecutionRecords.ts`, again on every replay, so a grant recorded by a process that died before it accepted the
 * invites completes here).
 */
import { Effect, Option } from "effect"
import { ChainGateway } from "../chain/ChainGateway.ts"
import { IssuedRequestStore } from "../eip712/IssuedRequestStore.ts"
import type { InviteId } from "../Ids.ts"
import { TeamAccess } from "../membership/TeamAccess.ts"
import { executeOnce } from "../payment/ExecuteOnce.ts"
import { ExecutionBodyMismatch } from "../payment/PaymentErrors.ts"
import type { Caller } from "../user/Caller.ts"
import { acceptGrantedInvites } from "./AcceptGrantedInvites.ts"
import { InviteAnswered, InviteExpired, InviteRevoked } from "./InviteErrors.ts"
import { InviteRepository } from "./InviteRepository.ts"
import type { ExecuteManagerInvitesRequest } from "./InviteRequests.ts"
import type { ManagerInvitesAnswer } from "./ManagerInvites.ts"

/** A revoked, rejected or expired invite is not granted (an accepted one is: this is a replay). */
const refuseClosed = Effect.fn("ManagerInvites.refuseClosed")(function* (ids: ReadonlyArray<InviteId>) {
  for (const id of ids) {
    const invite = yield* InviteRepository.use((invites) => invites.findById(id)).pipe(Effect.option)
    if (Option.isSome(invite) && invite.value.state !== "pending" && invite.value.state !== "accepted") {
      return yield* invite.value.state === "revoked"
        ? new InviteRevoked({ nanoid: id })
        : invite.value.state === "expired"
          ? new InviteExpired({ nanoid: id })
          : new InviteAnswered({ nanoid: id, state: invite.value.state })
    }
  }
})

/** Executes the signed grants of the issued request the body names, once (`invites.manager`). */
export const executeManagerInvites = Effect.fn("ManagerInvites.execute")(function* (
  caller: Caller,
  body: ExecuteManagerInvitesRequest
) {
  const salt = body.typed_data.salt
  const issued = yield* IssuedRequestStore.use((store) => store.find(salt))
  const sameInvites =
    issued.kind === "roles" &&
    issued.request.invites.length === body.invites.length &&
    issued.request.invites.every((id) => body.invites.includes(id))
  if (issued.kind !== "roles" || !sameInvites) return yield* new ExecutionBodyMismatch({ salt })
  yield* TeamAccess.use((access) => access.authorize(caller, issued.team, "invites.manager"))
  yield* ChainGateway.required
  yield* refuseClosed(issued.request.invites)
  const settled = yield* executeOnce({
    typedData: body.typed_data,
    signer: body.signer,
    signature: body.signature
  }).pipe(
    // Only a payment request holds invoices before it is sent; a grant takes nothing.
    Effect.catchTag("InvoiceNotPayable", (refused) => Effect.die(refused))
  )
  const result = { invites: issued.request.invites, transaction: settled.result.transaction }
  // Recorded: the invites are accepted (again, should the process that recorded the grant have died before).
  if (settled._tag === "Executed") yield* acceptGrantedInvites(issued)
  return { _tag: settled._tag, result } satisfies ManagerInvitesAnswer
})
