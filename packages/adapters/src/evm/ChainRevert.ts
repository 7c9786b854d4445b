/**
 * Turns what viem throws into the domain's chain errors: a decoded custom error of the suite becomes its domain
 * error; anything that is not a revert (network, node, timeout) becomes `ChainUnreachable`.
 */

import { svcAccountForwarderAbi, testUsdcAbi } from "@svc/contracts"
import {
  ChainUnreachable,
  EscrowClaimEmpty,
  InsufficientBalance,
  IntentAlreadyExecuted,
  type IntentError,
  IntentNotDue,
  IntentNotFound,
  IntentValidityElapsed,
  InvalidRequest,
  InvalidSignature,
  type RequestError,
  RequestExpired,
  SaltReplayed,
  SettlementReverted,
  SignerNotAuthorised,
  UnknownAccount
} from "@svc/domain/chain"
import { BaseError, ContractFunctionRevertedError, decodeErrorResult, type Hex } from "viem"

/** Every custom error the suite (and the test token) may raise, for decoding raw revert data. */
export const suiteErrorsAbi = [...svcAccountForwarderAbi, ...testUsdcAbi].filter((item) => item.type === "error")

/** A revert the suite raised, by name, or why there is none. */
type Revert =
  | { readonly _tag: "Revert"; readonly name: string; readonly args: ReadonlyArray<unknown> }
  | { readonly _tag: "Unnamed"; readonly reason: string }
  | { readonly _tag: "Unavailable"; readonly reason: string }

const messageOf = (error: unknown) =>
  error instanceof BaseError ? error.shortMessage : error instanceof Error ? error.message : String(error)

const rawRevertData = (error: BaseError): Hex | undefined => {
  let found: Hex | undefined
  error.walk((cause) => {
    const data = (cause as { data?: unknown }).data
    if (typeof data === "string" && data.startsWith("0x") && data.length >= 10) found = data as Hex
    return false
  })
  return found
}

const revertOf = (error: unknown): Revert => {
  if (!(error instanceof BaseError)) return { _tag: "Unavailable", reason: messageOf(error) }
  const reverted = error.walk((cause) => cause instanceof ContractFunctionRevertedError)
  if (reverted instanceof ContractFunctionRevertedError) {
    if (reverted.data?.errorName !== undefined) {
      return { _tag: "Revert", name: reverted.data.errorName, args: reverted.data.args ?? [] }
    }
    return { _tag: "Unnamed", reason: reverted.reason ?? reverted.shortMessage }
  }
  const raw = rawRevertData(error)
  if (raw !== undefined) {
    try {
      const decoded = decodeErrorResult({ abi: suiteErrorsAbi, data: raw })
      return { _tag: "Revert", name: decoded.errorName, args: decoded.args ?? [] }
    } catch {
      return { _tag: "Unnamed", reason: `reverted with ${raw.slice(0, 10)}` }
    }
  }
  const text = `${error.shortMessage} ${error.details ?? ""}`
  if (/revert|execution reverted|out of gas/i.test(text)) return { _tag: "Unnamed", reason: error.shortMessage }
  return { _tag: "Unavailable", reason: error.shortMessage }
}

const str = (value: unknown) => String(value)

/** Where a request was headed, to fill the errors the contract does not repeat. */
export interface RevertContext {
  readonly account: string
  readonly signer?: string
  /** The request's EIP-712 digest, computed only when a signature is refused. */
  readonly digest?: () => string
}

const common = (revert: Revert): SettlementReverted | ChainUnreachable | undefined => {
  if (revert._tag === "Unavailable") return new ChainUnreachable({ reason: revert.reason })
  if (revert._tag === "Unnamed") return new SettlementReverted({ reason: revert.reason })
  return undefined
}

const insufficient = (name: string, args: ReadonlyArray<unknown>, context: RevertContext) => {
  if (name === "InsufficientBalance") {
    return new InsufficientBalance({
      account: context.account,
      token: str(args[0]),
      balance: str(args[1]),
      amount: str(args[2])
    })
  }
  if (name === "ERC20InsufficientBalance") {
    return new InsufficientBalance({ account: str(args[0]), token: "", balance: str(args[1]), amount: str(args[2]) })
  }
  return undefined
}

/** The domain error for a failed forwarded request (payments, instant payment, roles). */
export const requestError = (error: unknown, context: RevertContext): RequestError => {
  const revert = revertOf(error)
  const other = common(revert)
  if (other !== undefined || revert._tag !== "Revert") return other!
  const { args, name } = revert
  switch (name) {
    case "RequestExpired":
      return new RequestExpired({ expires: str(args[0]) })
    case "SaltReplayed":
      return new SaltReplayed({ salt: str(args[0]) })
    case "InvalidSignature":
      return new InvalidSignature({ signer: context.signer ?? "", digest: context.digest?.() ?? "" })
    case "SignerNotAuthorised":
      return new SignerNotAuthorised({ signer: str(args[0]), account: str(args[1]) })
    case "UnknownAccount":
      return new UnknownAccount({ account: str(args[0]) })
    case "EmptyRequest":
      return new InvalidRequest({ reason: "the request has no entries" })
    case "UnknownPayType":
      return new InvalidRequest({ reason: `payment ${str(args[0])} has unknown payType ${str(args[1])}` })
    case "InvalidEscrowPayment":
      return new InvalidRequest({
        reason: `payment ${str(args[0])}: an escrow payment goes to the escrow with a 32-byte claim id as data`
      })
    case "InvalidRecipient":
      return new InvalidRequest({ reason: `payment ${str(args[0])} has no recipient` })
    case "InvalidIntentWindow":
      return new InvalidRequest({ reason: `payment ${str(args[0])}: payAtTime or validMinutes is out of range` })
    case "IntentAlreadyRegistered":
      return new InvalidRequest({ reason: `an intent with id ${str(args[0])} is already registered` })
    case "UnknownRole":
      return new InvalidRequest({ reason: `unknown role "${str(args[0])}"` })
  }
  return insufficient(name, args, context) ?? new SettlementReverted({ reason: name })
}

/** The domain error for a failed intent execution. */
export const intentError = (error: unknown, context: RevertContext): IntentError => {
  const revert = revertOf(error)
  const other = common(revert)
  if (other !== undefined || revert._tag !== "Revert") return other!
  const { args, name } = revert
  switch (name) {
    case "IntentNotFound":
      return new IntentNotFound({ account: context.account, id: str(args[0]) })
    case "IntentNotDue":
      return new IntentNotDue({ id: str(args[0]), payAtTime: str(args[1]) })
    case "IntentValidityElapsed":
      return new IntentValidityElapsed({ id: str(args[0]), validUntil: str(args[1]) })
    case "IntentAlreadyExecuted":
      return new IntentAlreadyExecuted({ id: str(args[0]) })
  }
  return insufficient(name, args, context) ?? new SettlementReverted({ reason: name })
}

/** The domain error for a failed escrow release. */
export const escrowError = (error: unknown): EscrowClaimEmpty | SettlementReverted | ChainUnreachable => {
  const revert = revertOf(error)
  const other = common(revert)
  if (other !== undefined || revert._tag !== "Revert") return other!
  if (revert.name === "NothingToRelease") {
    return new EscrowClaimEmpty({ claimId: str(revert.args[0]), token: str(revert.args[1]) })
  }
  return new SettlementReverted({ reason: revert.name })
}

/** The domain error for a failed transaction with no named refusal of its own (account creation, deployment). */
export const writeError = (error: unknown): SettlementReverted | ChainUnreachable => {
  const revert = revertOf(error)
  return common(revert) ?? new SettlementReverted({ reason: revert._tag === "Revert" ? revert.name : "" })
}

/** The domain error for a failed read: the node did not answer usefully. */
export const readError = (error: unknown): ChainUnreachable => new ChainUnreachable({ reason: messageOf(error) })

/** Network errors that mean the request never reached the node. */
const unreachedCodes = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH"])

/** Whether the node itself answered the call with a JSON-RPC error (it was reached, and said no). */
export const answeredByNode = (error: unknown): boolean => {
  let cause: unknown = error
  for (let depth = 0; depth < 10 && typeof cause === "object" && cause !== null; depth++) {
    if ((cause as { readonly name?: unknown }).name === "RpcRequestError") return true
    cause = (cause as { readonly cause?: unknown }).cause
  }
  return false
}

/**
 * Whether a failed send certainly did not reach the node: the connection was refused (or the host not found), or the
 * node answered with a JSON-RPC error (it refused the transaction). A timeout or a dropped connection may have
 * delivered it.
 */
export const nothingSent = (error: unknown): boolean => {
  let cause: unknown = error
  for (let depth = 0; depth < 10 && typeof cause === "object" && cause !== null; depth++) {
    const { code, name } = cause as { readonly code?: unknown; readonly name?: unknown }
    if (name === "TimeoutError") return false
    if (typeof code === "string" && unreachedCodes.has(code)) return true
    if (name === "RpcRequestError") return true
    cause = (cause as { readonly cause?: unknown }).cause
  }
  return false
}
