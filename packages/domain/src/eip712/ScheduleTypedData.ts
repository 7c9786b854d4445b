/**
 * The typed-data bundle of a pay schedule (`CreatePayScheduleForwardRequest`, contracts version 5): signed once for
 * every instalment.
 */
import { getAddress } from "viem"
import {
  PrimaryTypes,
  type RequestEnvelope,
  type ScheduleTypedDataBundle,
  type ScheduleTypedDataMessage,
  TypesOf
} from "./TypedData.ts"
import { type ForwarderLocation, forwarderDomain } from "./TypedDataBuilder.ts"

/** The schedule a bundle carries, as signed (`typed_data.data`). */
export type ScheduleEntry = ScheduleTypedDataMessage["data"]

/**
 * The bundle of a pay schedule.
 *
 * @example
 * const bundle = scheduleTypedData(location, envelope, {
 *   id, token: usdc, firstPayAt: "1767225600", interval: "monthly", count: "12", validMinutes: "1440",
 *   payees: [{ recipient, amount: "2500000000" }]
 * })
 */
export const scheduleTypedData = (
  location: ForwarderLocation,
  request: RequestEnvelope,
  schedule: ScheduleEntry
): ScheduleTypedDataBundle => ({
  domain: forwarderDomain(location),
  types: TypesOf.schedule,
  typed_data: {
    from: getAddress(request.from),
    to: getAddress(request.to),
    salt: request.salt,
    expires: request.expires,
    data: {
      ...schedule,
      token: getAddress(schedule.token),
      payees: [schedule.payees[0], ...schedule.payees.slice(1)].map((payee) => ({
        recipient: getAddress(payee.recipient),
        amount: payee.amount
      })) as unknown as ScheduleEntry["payees"]
    }
  },
  primary_type: PrimaryTypes.schedule
})
