/**
 * The team's cash requirement on the overview (issue 37): what falls due within its horizon (intents and pay schedule
 * instalments) against its balance, and the shortfall with the first due time that cannot be met.
 */
import { useCashRequirement } from "../api/Queries.ts"
import { pagePath } from "../navigation/Pages.ts"
import { Link } from "../navigation/Router.tsx"
import { DateTime, Money } from "../ui/Format.tsx"
import { ErrorNotice, Loading, Notice } from "../ui/Notice.tsx"

export const CashRequirementCard = ({ team }: { readonly team: string }) => {
  const cash = useCashRequirement(team)
  return (
    <section className="card card-pad stack" aria-labelledby="cash-heading">
      <div className="card-head">
        <h2 id="cash-heading">Cash requirement</h2>
        <Link to={pagePath(team, "schedules")}>Pay schedules</Link>
      </div>
      {cash.isPending ? <Loading what="the cash requirement" /> : null}
      {cash.isError ? <ErrorNotice error={cash.error} /> : null}
      {cash.data === undefined ? null : (
        <>
          <dl className="facts" data-testid="cash-requirement">
            <dt>Due within {cash.data.horizon_days} days</dt>
            <dd>
              <Money cents={cash.data.obligations_cents} />{" "}
              <span className="muted small">
                ({cash.data.obligations.length} {cash.data.obligations.length === 1 ? "obligation" : "obligations"})
              </span>
            </dd>
            <dt>Balance</dt>
            <dd>
              <Money cents={cash.data.balance_cents} />
            </dd>
            <dt>Shortfall</dt>
            <dd>
              <Money cents={cash.data.shortfall_cents} />
            </dd>
          </dl>
          {cash.data.shortfall_cents > 0 && cash.data.first_unmet_at !== null ? (
            <Notice tone="warn">
              The balance does not cover what falls due from <DateTime value={cash.data.first_unmet_at} />: fund the
              account.
            </Notice>
          ) : null}
        </>
      )}
    </section>
  )
}
