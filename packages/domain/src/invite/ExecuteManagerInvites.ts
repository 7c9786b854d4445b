/**
 * Executing signed manager grants (SPEC §4.9): granted on chain through the forwarder once per salt, with the same
 * claim, wait and replay as payments (`executeOnce`); each wallet then becomes a member with its role.
 */
import { Effect, Option } from "effect"
import { ChainGateway } from "../chain/ChainGateway.ts"
import type { IssuedRoles } from "../eip712/IssuedRequestStore.ts"
import { IssuedRequestStore } from "../eip712/IssuedRequestStore.ts"
import type { InviteId } from "../Ids.ts"
import { TeamAccess } from "../membership/TeamAccess.ts"
import { executeOnce, recordSurely, releaseOnRefusal, sendToChain, settleWithin } from "../payment/ExecuteOnce.ts"
import { ExecutionBodyMismatch, ExecutionInProgress } from "../payment/PaymentErrors.ts"
import { PaymentLedger } from "../payment/PaymentLedger.ts"
import type { Caller } from "../user/Caller.ts"
import { acceptGrantedInvites } from "./AcceptGrantedInvites.ts"
import { InviteAnswered, InviteExpired, InviteRevoked } from "./InviteErrors.ts"
import { InviteRepository } from "./InviteRepository.ts"
import type { ExecuteManagerInvitesRequest } from "./InviteRequests.ts"
import type { ManagerExecutionError, ManagerInvitesResult } from "./ManagerInvites.ts"

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

/**
 * Grants the roles for the holder of the claim, records the execution and accepts the invites, on a fiber of its own:
 * past `SettlementWait`, the answer is the transaction in flight (noted for replays) and the grant goes on by itself.
 */
const grant = (issued: IssuedRoles, body: ExecuteManagerInvitesRequest, claimToken: string) => {
  const salt = body.typed_data.salt
  const result = (transaction: string): ManagerInvitesResult => ({ invites: issued.request.invites, transaction })
  const payments = [] as const
  return Effect.gen(function* () {
    const ledger = yield* PaymentLedger
    const chain = yield* ChainGateway
    const settled = yield* settleWithin(
      (progress) =>
        Effect.gen(function* () {
          const settlement = yield* sendToChain(issued, body.signature, progress).pipe(
            Effect.provideService(ChainGateway, chain),
            Effect.tapError((error) => releaseOnRefusal(salt, claimToken, error))
          )
          const executed = { transaction: settlement.transactionHash, payments }
          yield* recordSurely(
            ledger.recordExecution({ salt, claimToken, signature: body.signature, result: executed, payments })
          )
          yield* acceptGrantedInvites(issued)
          return result(settlement.transactionHash)
        }),
      (transaction) =>
        ledger.noteInFlight({
          salt,
          claimToken,
          signature: body.signature,
          result: { transaction, payments },
          payments
        }),
      `manager grant ${salt}`
    )
    return settled._tag === "Done" ? settled.value : { ...result(settled.transaction), inFlight: true as const }
  })
}

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
  const result = (transaction: string): ManagerInvitesResult => ({ invites: issued.request.invites, transaction })
  return yield* executeOnce({
    request: { typedData: body.typed_data, signer: body.signer, signature: body.signature },
    execute: (claim) => grant(issued, body, claim.claimToken),
    recorded: (recorded) => Effect.as(acceptGrantedInvites(issued), result(recorded.transaction)),
    inFlight: (noted) => Effect.succeed({ ...result(noted.transaction), inFlight: true as const }),
    abandoned: (): Effect.Effect<ManagerInvitesResult | undefined, ManagerExecutionError> =>
      Effect.fail(new ExecutionInProgress({ salt, message: "The grant is being reconciled; retry later" }))
  })
})
