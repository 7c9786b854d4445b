/**
 * A pay schedule as the domain records it (decision 0110): a standing order a team's payer signed once, registered on
 * chain, whose instalments are paid one by one as they come due; and its life, `active` until its last instalment is
 * settled (`completed`) or it is canceled (`canceled`). Each instalment is settled once, in order: paid, or missed
 * when its validity ended unpaid.
 */
import { Schema } from "effect"
import { keccak256, toHex } from "viem"
import { Address, Bytes32, Uint256String } from "../Evm.ts"
import { ScheduleInterval } from "../eip712/TypedData.ts"
import {
  alphabet,
  type EventId,
  InvoiceId,
  type PaymentGroupId,
  type PaymentId,
  PayScheduleId,
  TeamId,
  UserId
} from "../Ids.ts"
import { makeStateMachine } from "../StateMachine.ts"
import { IsoTimestamp } from "../Timestamp.ts"
import { instalmentDueAt } from "./Instalments.ts"

/**
 * The pay schedule machine.
 *
 * - `active`: registered on chain; its next instalment is paid when due (`settle` keeps it active).
 * - `completed`: every instalment was settled, paid or missed. Terminal.
 * - `canceled`: by the team, by its signer's removal, or by a payee's removal or blocking; on chain too. Terminal.
 */
export const PayScheduleMachine = makeStateMachine({
  name: "pay schedule",
  states: ["active", "completed", "canceled"],
  triggers: ["settle", "finish", "cancel"],
  transitions: {
    active: { settle: "active", finish: "completed", cancel: "canceled" },
    completed: {},
    canceled: {}
  }
})

/** A pay schedule's state. */
export type PayScheduleState = typeof PayScheduleMachine.State.Type

/** The state a schedule is recorded in once its registration is final. */
export const initialScheduleState: PayScheduleState = "active"

/**
 * One payee of a schedule: a member, paid into their svc account each instalment; or the author of an invoice the
 * schedule pays in instalments (`invoice_nanoid`, decision 0117), each instalment paying part of it.
 */
export const SchedulePayee = Schema.Struct({
  recipient_nanoid: UserId,
  /** The member's svc account, as signed. */
  recipient: Address,
  amount_cents: Schema.Int,
  token_amount: Uint256String,
  invoice_description: Schema.String,
  invoice_nanoid: Schema.optionalKey(InvoiceId)
})
export type SchedulePayee = typeof SchedulePayee.Type

/** A recorded pay schedule. */
export const PaySchedule = Schema.Struct({
  nanoid: PayScheduleId,
  team_nanoid: TeamId,
  /** The member whose wallet signed it, and that wallet. */
  signer_nanoid: UserId,
  signer: Address,
  state: PayScheduleMachine.State,
  interval: ScheduleInterval,
  /** Unix seconds: when instalment 0 is due. */
  first_pay_at: Schema.Int,
  count: Schema.Int,
  valid_minutes: Schema.Int,
  token: Address,
  token_decimals: Schema.Int,
  payees: Schema.Array(SchedulePayee),
  onchain_id: Bytes32,
  /** The salt of the signed request that registered it. */
  salt: Uint256String,
  registration_transaction: Schema.String,
  /** The block that registered it: where its instalments' logs are read from. */
  registration_block: Schema.Int,
  paid_count: Schema.Int,
  missed_count: Schema.Int,
  /** The next instalment to settle, from 0; `count` once all are. */
  next_instalment: Schema.Int,
  /** Unix seconds: when `next_instalment` is due; `null` once none is left. */
  next_pay_at: Schema.NullOr(Schema.Int),
  created_at: IsoTimestamp,
  updated_at: IsoTimestamp
})
export type PaySchedule = typeof PaySchedule.Type

/** The on-chain id of a schedule: keccak256 of its nanoid, so either finds the other. */
export const scheduleOnchainIdOf = (nanoid: PayScheduleId) => keccak256(toHex(nanoid))

/** What settling instalment `n` leaves of the schedule's progress: the next instalment and when it is due. */
export const progressAfter = (schedule: PaySchedule, n: number) => {
  const next = n + 1
  return {
    next_instalment: next,
    next_pay_at:
      next < schedule.count
        ? instalmentDueAt({ firstPayAt: schedule.first_pay_at, interval: schedule.interval }, next)
        : null
  }
}

/** The total of one instalment, in cents. */
export const instalmentCents = (schedule: Pick<PaySchedule, "payees">): number =>
  schedule.payees.reduce((sum, payee) => sum + payee.amount_cents, 0)

/** Twelve characters of the nanoid alphabet from a hash of `facts`: ids that the same facts always give. */
const bodyOf = (facts: string): string => {
  const digest = keccak256(toHex(facts)).slice(2)
  let body = ""
  for (let i = 0; i < 12; i++) body += alphabet[Number.parseInt(digest.slice(i * 2, i * 2 + 2), 16) % alphabet.length]
  return body
}

/** The payment that instalment `n` of a schedule made to its payee at `index`: the same instalment, the same id. */
export const instalmentPaymentIdOf = (schedule: PayScheduleId, n: number, index: number): PaymentId =>
  `pa-${bodyOf(`${schedule}:${n}:${index}`)}` as PaymentId

/** The group of instalment `n`'s payments, and the invoice of its payment to the payee at `index`. */
export const instalmentIdsOf = (schedule: PayScheduleId, n: number, index: number) => ({
  payment: instalmentPaymentIdOf(schedule, n, index),
  group: `pg-${bodyOf(`${schedule}:${n}`)}` as PaymentGroupId,
  invoice: `iv-${bodyOf(`${schedule}:${n}:${index}:invoice`)}` as InvoiceId
})

/** The id of an event that `facts` name: the same facts, the same id, so it is announced at most once. */
export const eventIdOfFacts = (facts: string): EventId => `ev-${bodyOf(facts)}` as EventId

/** The id of the event `kind` of a schedule (of instalment `n` when it is one's): announced at most once. */
export const scheduleEventIdOf = (schedule: PayScheduleId, kind: string, n?: number): EventId =>
  eventIdOfFacts(`${schedule}:${kind}:${n ?? ""}`)
