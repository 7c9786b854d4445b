/**
 * Executing signed payments (PUT /v2/payments): the signer's right to pay for the team, the check of the signed
 * request, one claim of the salt across replicas, settlement through the chain, and the payments with their events
 * recorded in one step (`executeOnce`, `ExecutionRecords.ts`). A replay, or a second replica receiving the same
 * request, answers the first result; a request whose holder died or whose outcome is unknown is finished by recovery
 * (docs/decisions/0017, 0093).
 */
import { Effect } from "effect"
import type { WalletAddress } from "../Evm.ts"
import { IssuedRequestStore, isIssuedPayment } from "../eip712/IssuedRequestStore.ts"
import { InsufficientPermissions } from "../membership/MembershipErrors.ts"
import { MembershipRepository } from "../membership/MembershipRepository.ts"
import type { Role } from "../membership/Role.ts"
import type { Team } from "../team/Team.ts"
import { UserRepository } from "../user/UserRepository.ts"
import { executeOnce, type Settled } from "./ExecuteOnce.ts"
import { sameBody } from "./IssuedPayments.ts"
import { ExecutionBodyMismatch } from "./PaymentErrors.ts"
import type { ExecutePaymentsRequest } from "./PaymentRequests.ts"

export { paymentsExecuted, settlementSeconds } from "./ExecutionRecords.ts"
export { paymentsFailed } from "./Recovery.ts"

/** Roles whose wallet may sign payments for a team (the forwarder's rule). */
export const payingRoles: ReadonlyArray<Role> = ["team_admin", "team_finance_admin"]

/** What PUT /v2/payments answers: `Executed` (200), or `InFlight` while its transaction is not final yet (202). */
export type ExecutionAnswer = Settled

/** The user whose wallet is `signer`, when it may pay for `team`. */
const payingSigner = Effect.fn("PaymentExecution.payingSigner")(function* (team: Team, signer: WalletAddress) {
  const user = yield* UserRepository.use((u) => u.findByWallet(signer))
  if (user._tag === "None") {
    return yield* new InsufficientPermissions({ message: "The signer is not a member of the team" })
  }
  const membership = yield* MembershipRepository.use((m) => m.find(team.nanoid, user.value.nanoid))
  if (membership._tag === "None" || !payingRoles.includes(membership.value.role)) {
    return yield* new InsufficientPermissions({ message: "The signer may not pay for this team" })
  }
  return user.value
})

/**
 * Executes signed payments for `team` (the caller's permission already checked): `Executed` with `{transaction,
 * payments}`, or `InFlight` with the transaction sent and not final after the wait.
 */
export const executePayments = Effect.fn("PaymentExecution.executePayments")(function* (
  team: Team,
  body: ExecutePaymentsRequest
) {
  yield* payingSigner(team, body.signer)
  const salt = body.typed_data.salt
  const issued = yield* IssuedRequestStore.use((store) => store.find(salt))
  if (!isIssuedPayment(issued) || issued.team !== team.nanoid || !sameBody(issued.request.body, body)) {
    return yield* new ExecutionBodyMismatch({ salt })
  }
  return yield* executeOnce({ typedData: body.typed_data, signer: body.signer, signature: body.signature })
})
