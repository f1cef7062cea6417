/** The label of a path no route takes: one series for every unknown path, whatever it is. */
export const UNMATCHED = 'unmatched'

interface Node {
  statics: Map<string, Node>
  param?: Node
  /** The template of a `*` route here: it takes the rest of the path. */
  rest?: string
  /** The template ending here. */
  template?: string
}

const node = (): Node => ({ statics: new Map() })

/**
 * The route template a path belongs to (`/api/v2/orders/ord_01h...` -> `/api/v2/orders/:id`), as
 * the router's own paths spell it, so that metrics are labelled by template and never by a raw
 * path, an id or a query string. Static segments win over parameters, parameters over a `*`, as
 * in the router; the set of labels is the set of routes, plus `unmatched`.
 */
export class RouteTemplates {
  private readonly root = node()

  constructor(templates: Iterable<string>) {
    for (const template of templates) this.add(template)
  }

  private add(template: string): void {
    let at = this.root
    for (const segment of segmentsOf(template)) {
      if (segment === '*') {
        at.rest = template
        return
      }
      if (segment.startsWith(':')) {
        at.param ??= node()
        at = at.param
        continue
      }
      let next = at.statics.get(segment)
      if (next === undefined) {
        next = node()
        at.statics.set(segment, next)
      }
      at = next
    }
    at.template ??= template
  }

  /** The template of `path` (a URL's pathname, no query string), or `unmatched`. */
  match(path: string): string {
    return find(this.root, segmentsOf(path), 0) ?? UNMATCHED
  }
}

/** A path's segments; a trailing slash is the same path, as the router takes it. */
function segmentsOf(path: string): string[] {
  const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path
  return trimmed.split('/').slice(1)
}

function find(at: Node, segments: readonly string[], index: number): string | undefined {
  if (index === segments.length) return at.template ?? at.rest
  const segment = segments[index]!
  const fixed = at.statics.get(segment)
  const found =
    (fixed && find(fixed, segments, index + 1)) ||
    (at.param && segment !== '' && find(at.param, segments, index + 1)) ||
    undefined
  return found ?? at.rest
}
