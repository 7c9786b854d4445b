/**
 * How the console shows values: money as the command line does (`$1,234.56`, the domain's `formatCents`), dates in
 * the viewer's zone with UTC on hover, long hex values shortened with the whole value at hand.
 */
import { formatCents } from "@svc/domain/payment"

/** An amount of cents, in tabular figures. */
export const Money = ({ cents }: { readonly cents: number }) => <span className="num">{formatCents(cents)}</span>

const localFormat = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" })
const dayFormat = new Intl.DateTimeFormat(undefined, { dateStyle: "medium" })

/** A moment in the viewer's zone; its UTC form on hover and for machines (`datetime`). */
export const DateTime = ({ value, day = false }: { readonly value: string | number; readonly day?: boolean }) => {
  const date = typeof value === "number" ? new Date(value * 1000) : new Date(value)
  if (Number.isNaN(date.getTime()) || date.getTime() === 0) return <span className="muted">—</span>
  const utc = date
    .toISOString()
    .replace("T", " ")
    .replace(/\.\d+Z$/, " UTC")
  return (
    <time dateTime={date.toISOString()} title={utc}>
      {(day ? dayFormat : localFormat).format(date)}
    </time>
  )
}

/** `0x1234…abcd`: the start and end of a long hex value. */
export const shortHex = (value: string) => (value.length > 14 ? `${value.slice(0, 6)}…${value.slice(-4)}` : value)

/** A hex value (an address, a transaction) shortened, whole in its title. */
export const Hex = ({ value }: { readonly value: string }) =>
  value === "" ? (
    <span className="muted">—</span>
  ) : (
    <span className="mono" title={value}>
      {shortHex(value)}
    </span>
  )

/** A person's name from its parts, or their e-mail, or their id. */
export const nameOf = (person: {
  readonly first_name?: string
  readonly last_name?: string
  readonly email?: string
  readonly nanoid?: string
}) => [person.first_name, person.last_name].filter(Boolean).join(" ") || person.email || person.nanoid || "—"

/** A role as people say it: `team_finance_admin` -> `Finance admin`. */
export const roleName = (role: string) => {
  const words = role.replace(/^team_/, "").replace(/_/g, " ")
  return words.charAt(0).toUpperCase() + words.slice(1)
}
