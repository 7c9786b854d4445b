/**
 * A modal dialog on the native `<dialog>`: the browser keeps focus inside it and closes it on Escape; it is open while
 * it is rendered.
 */
import { type ReactNode, useEffect, useId, useRef } from "react"

export const Dialog = ({
  title,
  onClose,
  children,
  footer
}: {
  readonly title: string
  readonly onClose: () => void
  readonly children: ReactNode
  readonly footer?: ReactNode
}) => {
  const ref = useRef<HTMLDialogElement>(null)
  const titleId = useId()
  useEffect(() => {
    const dialog = ref.current
    if (dialog !== null && !dialog.open) dialog.showModal()
    return () => dialog?.close()
  }, [])
  return (
    <dialog
      ref={ref}
      aria-labelledby={titleId}
      onCancel={(event) => {
        event.preventDefault()
        onClose()
      }}
    >
      <div className="dialog-head">
        <h2 id={titleId}>{title}</h2>
        <button type="button" className="ghost small" onClick={onClose}>
          Close
        </button>
      </div>
      <div className="dialog-body">{children}</div>
      {footer === undefined ? null : <div className="dialog-foot">{footer}</div>}
    </dialog>
  )
}
