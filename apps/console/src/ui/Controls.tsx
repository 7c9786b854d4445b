/** Buttons, fields and the page header: the console's few building blocks. */
import { type ButtonHTMLAttributes, type ReactNode, useId, useState } from "react"

/** A button that shows its work while `busy` (and is then not pressed twice). */
export const Button = ({
  busy = false,
  variant,
  children,
  disabled,
  type = "button",
  ...props
}: ButtonHTMLAttributes<HTMLButtonElement> & {
  readonly busy?: boolean
  readonly variant?: "primary" | "danger" | "ghost" | undefined
}) => (
  <button
    {...props}
    type={type}
    className={[variant, props.className].filter(Boolean).join(" ") || undefined}
    disabled={disabled === true || busy}
    aria-busy={busy || undefined}
  >
    {busy ? <span className="spinner" aria-hidden="true" /> : null}
    {children}
  </button>
)

/** A labelled field; `children` receives the id its control must carry. */
export const Field = ({
  label,
  hint,
  problem,
  children
}: {
  readonly label: string
  readonly hint?: ReactNode
  readonly problem?: string | undefined
  readonly children: (props: { id: string; "aria-describedby"?: string; "aria-invalid"?: true }) => ReactNode
}) => {
  const id = useId()
  const describedBy = [
    hint === undefined ? undefined : `${id}-hint`,
    problem === undefined ? undefined : `${id}-problem`
  ]
    .filter(Boolean)
    .join(" ")
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {children({
        id,
        ...(describedBy === "" ? {} : { "aria-describedby": describedBy }),
        ...(problem === undefined ? {} : { "aria-invalid": true as const })
      })}
      {hint === undefined ? null : (
        <span className="hint" id={`${id}-hint`}>
          {hint}
        </span>
      )}
      {problem === undefined ? null : (
        <span className="problem" id={`${id}-problem`}>
          {problem}
        </span>
      )}
    </div>
  )
}

/** The top of a page: its title, what it is for, and its actions. */
export const PageHeader = ({
  title,
  description,
  actions,
  crumb
}: {
  readonly title: string
  readonly description?: ReactNode
  readonly actions?: ReactNode
  readonly crumb?: ReactNode
}) => (
  <div className="page-head">
    <div>
      {crumb}
      <h1>{title}</h1>
      {description === undefined ? null : <p>{description}</p>}
    </div>
    {actions === undefined ? null : <div className="actions">{actions}</div>}
  </div>
)

/** Copies `value` to the clipboard and says so for a moment. */
export const CopyButton = ({ value, label }: { readonly value: string; readonly label: string }) => {
  const [copied, setCopied] = useState(false)
  const copy = async () => {
    await navigator.clipboard?.writeText(value).catch(() => undefined)
    setCopied(true)
    window.setTimeout(() => setCopied(false), 1500)
  }
  return (
    <button type="button" className="small" onClick={copy}>
      {copied ? "Copied" : label}
    </button>
  )
}
