/** Markup that is already safe: the result of `html`, never built from unescaped input. */
export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value
  }
}

const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ENTITIES[c]!)

function render(value: unknown): string {
  if (value instanceof Html) return value.value
  if (Array.isArray(value)) return value.map(render).join('')
  if (value === null || value === undefined || value === false) return ''
  return escapeHtml(String(value))
}

/** A template tag that escapes every interpolated value (text and attributes alike) unless it is Html. */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0]!
  for (const [i, value] of values.entries()) out += render(value) + strings[i + 1]!
  return new Html(out)
}

/** A hidden form field. */
export const hidden = (name: string, value: string) =>
  html`<input type="hidden" name="${name}" value="${value}">`
