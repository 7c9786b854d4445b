/**
 * The payout address use cases (issue 39, decision 0108) as one service, each in a file of its own: the proof to sign,
 * setting the address with it, reading it, and reporting a change that was not the member's.
 */
import { Context, type Effect } from "effect"
import type { ChainGateway } from "../chain/ChainGateway.ts"
import type { AlreadyClaimed, TypedDataNotFound } from "../eip712/IssuedRequestStore.ts"
import type { PayoutAddressTypedDataBundle } from "../eip712/TypedData.ts"
import type {
  ExpiredTypedData,
  InvalidSignature,
  MalformedTypedData,
  TypedDataMismatch
} from "../eip712/TypedDataError.ts"
import type { StaleState } from "../StaleState.ts"
import { useCaseLayer } from "../UseCases.ts"
import type { Caller } from "../user/Caller.ts"
import type { UserNotFound } from "../user/UserNotFound.ts"
import { getPayoutAddress } from "./GetPayoutAddress.ts"
import { issuePayoutProof } from "./IssuePayoutProof.ts"
import type {
  IssuePayoutProofBody,
  PayoutAddressView,
  ReportedPayoutChange,
  ReportPayoutChangeBody,
  SetPayoutAddressBody
} from "./PayoutAddress.ts"
import type { InvalidPayoutAddress, PayoutChangeSuperseded, PayoutReportInvalid } from "./PayoutErrors.ts"
import { reportPayoutChange } from "./ReportPayoutChange.ts"
import { setPayoutAddress } from "./SetPayoutAddress.ts"

type PayoutPorts =
  | Effect.Services<ReturnType<typeof issuePayoutProof>>
  | Effect.Services<ReturnType<typeof setPayoutAddress>>
  | Effect.Services<ReturnType<typeof getPayoutAddress>>
  | Effect.Services<ReturnType<typeof reportPayoutChange>>
  | ChainGateway

/** Why setting a payout address is refused. */
export type SetPayoutAddressError =
  | TypedDataNotFound
  | TypedDataMismatch
  | MalformedTypedData
  | InvalidSignature
  | ExpiredTypedData
  | AlreadyClaimed
  | StaleState
  | UserNotFound

/** A member's payout address, for the caller (the report: for whoever holds the link). */
export class PayoutAddresses extends Context.Service<
  PayoutAddresses,
  {
    readonly issueProof: (
      caller: Caller,
      body: IssuePayoutProofBody
    ) => Effect.Effect<PayoutAddressTypedDataBundle, InvalidPayoutAddress | UserNotFound>
    readonly set: (
      caller: Caller,
      body: SetPayoutAddressBody
    ) => Effect.Effect<PayoutAddressView, SetPayoutAddressError>
    readonly get: (caller: Caller) => Effect.Effect<PayoutAddressView, UserNotFound>
    readonly report: (
      body: ReportPayoutChangeBody
    ) => Effect.Effect<ReportedPayoutChange, PayoutReportInvalid | PayoutChangeSuperseded>
  }
>()("@svc/domain/payout/PayoutAddresses") {
  /** On the storage ports, the chain, the signature check, mail settings, ids and randomness. */
  static readonly layer = useCaseLayer<PayoutPorts>()(PayoutAddresses, (run) => ({
    issueProof: (caller, body) => run(issuePayoutProof(caller, body)),
    set: (caller, body) => run(setPayoutAddress(caller, body)),
    get: (caller) => run(getPayoutAddress(caller)),
    report: (body) => run(reportPayoutChange(body))
  }))
}
