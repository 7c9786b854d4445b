/**
 * What the console says when something is loading, empty or wrong. An API refusal shows the API's own message and
 * its code (issue 40); a wallet that declined says so.
 */
import { SvcError } from "@svc/client"
import type { ReactNode } from "react"

/** A failure as a person reads it: a sentence, and the API's code when the API refused. */
export const describeError = (error: unknown): { readonly message: string; readonly code: string | undefined } => {
  if (error instanceof SvcError) return { message: error.message, code: error.errorCode }
  const walletCode = (error as { code?: unknown; cause?: { code?: unknown } } | undefined)?.code
  const causeCode = (error as { cause?: { code?: unknown } } | undefined)?.cause?.code
  if (walletCode === 4001 || causeCode === 4001 || (error as Error | undefined)?.name === "UserRejectedRequestError") {
    return { message: "The wallet declined the request: nothing was signed.", code: undefined }
  }
  const message = error instanceof Error ? (error.message.split("\n")[0] ?? error.message) : String(error)
  return { message, code: undefined }
}

/** An error, announced to screen readers. */
export const ErrorNotice = ({ error, title }: { readonly error: unknown; readonly title?: string }) => {
  const { message, code } = describeError(error)
  return (
    <div className="notice error" role="alert">
      {title === undefined ? null : <strong>{title}</strong>}
      <span>
        {message}
        {code === undefined ? null : (
          <>
            {" "}
            <code>{code}</code>
          </>
        )}
      </span>
    </div>
  )
}

/** A notice of another kind (success, info, warning). */
export const Notice = ({
  tone,
  children
}: {
  readonly tone: "success" | "info" | "warn"
  readonly children: ReactNode
}) => (
  <div className={`notice ${tone}`} role="status">
    {children}
  </div>
)

/** Loading, said in words as well as shown. */
export const Loading = ({ what }: { readonly what: string }) => (
  <div className="loading" role="status">
    <span className="spinner" aria-hidden="true" /> Loading {what}…
  </div>
)

/** Nothing here yet: what it would show, and what to do. */
export const Empty = ({
  title,
  children,
  action
}: {
  readonly title: string
  readonly children?: ReactNode
  readonly action?: ReactNode
}) => (
  <div className="empty">
    <h2>{title}</h2>
    {children === undefined ? null : <p>{children}</p>}
    {action}
  </div>
)
