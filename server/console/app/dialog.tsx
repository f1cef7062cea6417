/** A modal dialog (the native <dialog>: focus kept inside, Escape closes it, focus returns). */
import type { ComponentChildren } from 'preact'
import { useEffect, useRef } from 'preact/hooks'

export function Dialog(props: {
  title: string
  open: boolean
  onClose: () => void
  children: ComponentChildren
}) {
  const ref = useRef<HTMLDialogElement>(null)
  useEffect(() => {
    const dialog = ref.current
    if (!dialog) return
    if (props.open && !dialog.open) dialog.showModal()
    if (!props.open && dialog.open) dialog.close()
  }, [props.open])
  return (
    <dialog ref={ref} aria-labelledby="dialog-title" onClose={props.onClose}>
      <h2 id="dialog-title">{props.title}</h2>
      {props.children}
    </dialog>
  )
}
