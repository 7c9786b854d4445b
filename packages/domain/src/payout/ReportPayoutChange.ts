/**
 * `POST /v2/user/withdraw_account/report` (decision 0108): the member reports, from the link of the change's notice,
 * that a payout address change was not theirs. The link's token is the authority (an access token may be what was
 * stolen). The change is undone (the address before it is back) and each of their teams is told
 * (`withdraw_account.updated`, `change: "reported"`), in one unit; a link works once, for 30 days, and only for the
 * member's last change.
 */
import { Clock, Effect } from "effect"
import { EventOutbox } from "../event/EventOutbox.ts"
import { hashInviteToken } from "../invite/InviteToken.ts"
import { isoOf } from "../Timestamp.ts"
import { UnitOfWork } from "../UnitOfWork.ts"
import { UserRepository } from "../user/UserRepository.ts"
import { type ReportedPayoutChange, type ReportPayoutChangeBody, reportWindowMillis } from "./PayoutAddress.ts"
import { PayoutAddressStore } from "./PayoutAddressStore.ts"
import { PayoutChangeSuperseded, PayoutReportInvalid } from "./PayoutErrors.ts"
import { payoutChangeEventsOf } from "./PayoutEvents.ts"

/**
 * Reports the change `body.change_nanoid` with its link's token.
 *
 * @example
 * const reported = yield* reportPayoutChange({ change_nanoid: "wa-…", token })
 */
export const reportPayoutChange = Effect.fn("PayoutAddresses.report")(function* (body: ReportPayoutChangeBody) {
  const store = yield* PayoutAddressStore
  const invalid = new PayoutReportInvalid({ change: body.change_nanoid })
  const found = yield* store.findChange(body.change_nanoid)
  const nowMillis = yield* Clock.currentTimeMillis
  const hash = hashInviteToken(body.token)
  if (
    found._tag === "None" ||
    found.value.report_token_hash !== hash ||
    found.value.reported_at !== null ||
    Date.parse(found.value.created_at) + reportWindowMillis < nowMillis
  ) {
    return yield* invalid
  }
  const change = found.value
  const latest = yield* store.latestChange(change.user_nanoid)
  if (latest._tag === "None" || latest.value.nanoid !== change.nanoid) {
    return yield* new PayoutChangeSuperseded({ change: change.nanoid })
  }
  const now = isoOf(nowMillis)
  const events = yield* payoutChangeEventsOf(change, "reported", now)
  yield* UnitOfWork.use((unit) =>
    unit.run(
      Effect.gen(function* () {
        if (!(yield* store.markReported(change.nanoid, hash, now))) return yield* invalid
        yield* UserRepository.use((u) =>
          u.setPayoutAddress(change.user_nanoid, change.address, change.previous_address)
        ).pipe(Effect.catchTag("StaleState", () => Effect.fail(new PayoutChangeSuperseded({ change: change.nanoid }))))
        yield* EventOutbox.use((outbox) => outbox.append(events))
      })
    )
  )
  return {
    change_nanoid: change.nanoid,
    reported: true,
    address: change.previous_address
  } satisfies ReportedPayoutChange
})
