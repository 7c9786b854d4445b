/**
 * Pay schedules (issue 37): the team's standing orders, each signed once and paid by the chain every period, with
 * their state, next instalment and what is paid and left; a new schedule (`/schedules/new`, `NewSchedule.tsx`); and
 * cancelling one for good (team admins and finance admins: `payments.execute`). A payee paid part of an invoice each
 * instalment (issue 38) links to the invoice.
 */
import { useMutation, useQueryClient } from "@tanstack/react-query"
import { Fragment } from "react"
import { keys, useInvoices, useSchedules, useUsers } from "../api/Queries.ts"
import type { PaySchedule } from "../api/Types.ts"
import { type PageProps, pagePath } from "../navigation/Pages.ts"
import { Link, navigate } from "../navigation/Router.tsx"
import type { TeamContext } from "../navigation/Team.ts"
import { useClient } from "../session/Session.tsx"
import { Badge } from "../ui/Badge.tsx"
import { Button, PageHeader } from "../ui/Controls.tsx"
import { DateTime, Money, nameOf } from "../ui/Format.tsx"
import { Empty, ErrorNotice, Loading } from "../ui/Notice.tsx"
import { NewSchedule } from "./NewSchedule.tsx"

const stateBadge = { active: "moving", completed: "good", canceled: "neutral" } as const
const stateWord = { active: "Active", completed: "Completed", canceled: "Canceled" } as const
const intervalWord = { weekly: "Weekly", biweekly: "Every two weeks", monthly: "Monthly" } as const

const CancelButton = ({ team, schedule }: { readonly team: TeamContext; readonly schedule: PaySchedule }) => {
  const client = useClient()
  const queryClient = useQueryClient()
  const cancel = useMutation({
    mutationFn: () => client.schedules.cancel({ params: { pay_schedule_nanoid: schedule.nanoid } }),
    onSettled: async () => {
      await queryClient.invalidateQueries({ queryKey: keys.schedules(team.team) })
      await queryClient.invalidateQueries({ queryKey: keys.cashRequirement(team.team) })
      // The invoices it pays are held by it, or let go.
      await queryClient.invalidateQueries({ queryKey: keys.invoices(team.team) })
    }
  })
  return (
    <>
      <Button busy={cancel.isPending} onClick={() => cancel.mutate()}>
        Cancel
      </Button>
      {cancel.isError ? <ErrorNotice error={cancel.error} title="Not canceled" /> : null}
    </>
  )
}

const ScheduleRows = ({
  team,
  schedules
}: {
  readonly team: TeamContext
  readonly schedules: ReadonlyArray<PaySchedule>
}) => {
  const users = useUsers(team.team, team.may("team.users.list"))
  const nameOfUser = (user: string) => {
    const found = users.data?.find((candidate) => candidate.nanoid === user)
    return found === undefined ? user : nameOf(found)
  }
  const invoices = useInvoices(team.team, undefined, team.may("invoices.read"))
  const numberOf = (invoice: string) =>
    invoices.data?.items.find((candidate) => candidate.nanoid === invoice)?.invoice_number ?? invoice
  const mayCancel = team.may("payments.execute")
  return (
    <table className="data">
      <thead>
        <tr>
          <th scope="col">Recipients</th>
          <th scope="col">Interval</th>
          <th scope="col">State</th>
          <th scope="col">Next pay</th>
          <th scope="col" className="num">
            Paid
          </th>
          <th scope="col" className="num">
            Left
          </th>
          <th scope="col" className="num">
            Each time
          </th>
          {mayCancel ? <th scope="col">Actions</th> : null}
        </tr>
      </thead>
      <tbody>
        {schedules.map((schedule) => (
          <tr key={schedule.nanoid}>
            <td data-label="Recipients" className="primary">
              {schedule.recipients.map((recipient, index) => (
                <Fragment key={recipient.user_nanoid}>
                  {index === 0 ? null : ", "}
                  {nameOfUser(recipient.user_nanoid)}
                  {recipient.invoice_nanoid === null ? null : (
                    <>
                      {" ("}
                      <Link className="in-text" to={pagePath(team.team, "invoices", recipient.invoice_nanoid)}>
                        Invoice {numberOf(recipient.invoice_nanoid)}
                      </Link>
                      {")"}
                    </>
                  )}
                </Fragment>
              ))}
              <span className="sub mono">{schedule.nanoid}</span>
            </td>
            <td data-label="Interval">{intervalWord[schedule.interval]}</td>
            <td data-label="State">
              <Badge tone={stateBadge[schedule.state]}>{stateWord[schedule.state]}</Badge>
            </td>
            <td data-label="Next pay">
              {schedule.next_pay_at === null ? (
                <span className="muted">—</span>
              ) : (
                <DateTime value={schedule.next_pay_at} />
              )}
            </td>
            <td data-label="Paid" className="num">
              {schedule.paid_count}
            </td>
            <td data-label="Left" className="num">
              {schedule.remaining_count}
            </td>
            <td data-label="Each time" className="num">
              <Money cents={schedule.amount_cents} />
            </td>
            {mayCancel ? (
              <td data-label="Actions">
                {schedule.state === "active" ? <CancelButton team={team} schedule={schedule} /> : null}
              </td>
            ) : null}
          </tr>
        ))}
      </tbody>
    </table>
  )
}

const ScheduleList = ({ team }: PageProps) => {
  const schedules = useSchedules(team.team)
  const create = team.may("payments.create") ? (
    <Button variant="primary" onClick={() => navigate(pagePath(team.team, "schedules", "new"))}>
      New schedule
    </Button>
  ) : undefined
  return (
    <>
      <PageHeader
        title="Pay schedules"
        description="Standing orders signed once: the chain pays each instalment when it comes due."
        actions={create}
      />
      <section className="card" aria-label="Pay schedules">
        {schedules.isPending ? <Loading what="pay schedules" /> : null}
        {schedules.isError ? <ErrorNotice error={schedules.error} /> : null}
        {schedules.data?.length === 0 ? (
          <Empty title="No pay schedules yet">Pay the same people every week or month with one signature.</Empty>
        ) : null}
        {schedules.data === undefined || schedules.data.length === 0 ? null : (
          <ScheduleRows team={team} schedules={schedules.data} />
        )}
      </section>
    </>
  )
}

export const PaySchedulesPage = (props: PageProps) =>
  props.rest[0] === "new" ? <NewSchedule team={props.team} /> : <ScheduleList {...props} />
