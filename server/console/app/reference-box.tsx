/**
 * A reference field's box: it takes an id as typed, and offers the referenced collection's records
 * below it as a list box (the ARIA combobox pattern: arrows move, Enter or a click chooses, Escape
 * closes), each by its name with its id; choosing one puts its id in the box.
 */
import { useState } from 'preact/hooks'
import type { Collection } from './learn.ts'
import { type ReferenceOption, useReferenceOptions } from './reference-options.ts'

/** The attributes every control of the form has. */
interface CommonProps {
  id: string
  name: string
  required?: boolean
  'aria-invalid'?: boolean | undefined
  'aria-describedby'?: string | undefined
}

export function ReferenceBox(props: {
  common: CommonProps
  name: string
  target: Collection
  value: string
  onInput: (value: string) => void
}) {
  const { common, value } = props
  const options = useReferenceOptions(props.target, value)
  const [open, setOpen] = useState(false)
  const [active, setActive] = useState(-1)
  const list = `${common.id}-options`
  const placeholder = `${props.target.name} id`
  if (!options)
    return (
      <input
        {...common}
        type="text"
        value={value}
        placeholder={placeholder}
        onInput={(e) => props.onInput(e.currentTarget.value)}
      />
    )
  const shown = open && options.length > 0
  const choose = (option: ReferenceOption) => {
    props.onInput(option.id)
    setOpen(false)
    setActive(-1)
  }
  const move = (by: number) => {
    setOpen(true)
    setActive((now) => Math.min(Math.max(now + by, 0), options.length - 1))
  }
  return (
    <div class="combobox">
      <input
        {...common}
        type="text"
        role="combobox"
        autoComplete="off"
        aria-autocomplete="list"
        aria-expanded={shown}
        aria-controls={list}
        aria-activedescendant={shown && active >= 0 ? `${list}-${active}` : undefined}
        value={value}
        placeholder={placeholder}
        onInput={(e) => {
          props.onInput(e.currentTarget.value)
          setOpen(true)
          setActive(-1)
        }}
        onKeyDown={(e) => {
          if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
            e.preventDefault()
            move(e.key === 'ArrowDown' ? 1 : -1)
          } else if (e.key === 'Enter' && shown && options[active]) {
            // Enter chooses the highlighted record; it does not submit the form.
            e.preventDefault()
            choose(options[active])
          } else if (e.key === 'Escape' && shown) {
            e.preventDefault()
            setOpen(false)
          }
        }}
        onBlur={() => setOpen(false)}
      />
      <div id={list} role="listbox" aria-label={`${props.target.name} to choose from`} hidden={!shown}>
        {options.map((option, index) => (
          // biome-ignore lint/a11y/useKeyWithClickEvents: the keyboard chooses in the box (arrows, Enter), as the combobox pattern has it
          <div
            key={option.id}
            id={`${list}-${index}`}
            role="option"
            aria-selected={index === active}
            tabIndex={-1}
            // Chosen on mousedown's heels: keeping the focus in the box keeps the list open until then.
            onMouseDown={(e) => e.preventDefault()}
            onClick={() => choose(option)}
          >
            {option.label} <code>{option.id}</code>
          </div>
        ))}
      </div>
    </div>
  )
}
