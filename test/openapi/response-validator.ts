import Ajv2020 from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'

type Json = { [key: string]: unknown }

/**
 * Headers of HTTP itself, of caching and of browsers (CORS, the pages' security headers), which the
 * documents do not repeat on every response (docs/api.md, "The OpenAPI documents"). Every other
 * header a response carries must be documented on it.
 */
const GENERIC_HEADERS = new Set([
  'content-type',
  'content-length',
  'date',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'cache-control',
  'pragma',
  'vary',
  'x-content-type-options',
  'content-security-policy',
  'x-frame-options',
  'referrer-policy',
  'cross-origin-opener-policy',
  'strict-transport-security',
])

const pointerSegment = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1')

/** One request as sent and its response as received. */
export interface Exchange {
  method: string
  /** Path and query string. */
  target: string
  status: number
  headers: Headers
  body: string
}

/**
 * Checks real responses against an OpenAPI 3.1 or 3.2 document: the status is one the operation
 * lists, every required header is there, every header sent is documented and matches its schema,
 * and the body matches the schema of its media type (JSON Schema 2020-12, with formats).
 */
export class ResponseValidator {
  private readonly ajv: Ajv2020
  private readonly templates: { path: string; pattern: RegExp; params: number }[]
  private readonly queryField: string

  constructor(private readonly doc: Json) {
    this.ajv = new Ajv2020({ strict: false, allErrors: true })
    addFormats(this.ajv)
    // The resources' own formats (shared/formats.ts), by shape.
    this.ajv.addFormat('currency', /^[A-Z]{3}$/)
    this.ajv.addFormat('country', /^[A-Z]{2}$/)
    this.ajv.addSchema(doc, 'openapi')
    this.queryField = String(doc.openapi).startsWith('3.2') ? 'query' : 'x-query'
    this.templates = Object.keys(doc.paths as Json).map((path) => ({
      path,
      pattern: new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]+')}$`),
      params: (path.match(/\{/g) ?? []).length,
    }))
  }

  /** The document's path that a request path falls under; literal segments win over parameters. */
  templateOf(path: string): string | undefined {
    const matches = this.templates.filter((t) => t.pattern.test(path)).sort((a, b) => a.params - b.params)
    return matches[0]?.path
  }

  /** What is wrong with an exchange, as readable lines; none when it is as documented. */
  check(exchange: Exchange): string[] {
    const path = new URL(exchange.target, 'http://x').pathname
    const where = `${exchange.method} ${exchange.target} -> ${exchange.status}`
    const template = this.templateOf(path)
    if (!template) return [`${where}: the path is not documented`]
    const item = (this.doc.paths as Record<string, Json>)[template]!
    const key =
      exchange.method === 'QUERY'
        ? this.queryField
        : exchange.method === 'HEAD'
          ? 'get'
          : exchange.method.toLowerCase()
    const operation = item[key] as Json | undefined
    if (!operation) return this.checkNotAllowed(where, item, exchange)
    const pointer = `/paths/${pointerSegment(template)}/${pointerSegment(key)}/responses/${exchange.status}`
    const responses = operation.responses as Json
    if (!(String(exchange.status) in responses)) return [`${where}: the status is not documented`]
    return this.checkResponse(where, pointer, exchange)
  }

  /** 405: the component response, and an Allow that lists exactly the documented methods. */
  private checkNotAllowed(where: string, item: Json, exchange: Exchange): string[] {
    if (exchange.status !== 405) return [`${where}: the method is not documented, so the answer must be 405`]
    const problems = this.checkResponse(where, '/components/responses/E405', exchange)
    const methods = Object.keys(item)
      .filter((k) => ['get', 'put', 'post', 'delete', 'patch', this.queryField].includes(k))
      .map((k) => (k === this.queryField ? 'QUERY' : k.toUpperCase()))
    const documented = [...methods, ...(methods.includes('GET') ? ['HEAD'] : []), 'OPTIONS'].sort()
    const allow = (exchange.headers.get('allow') ?? '')
      .split(',')
      .map((m) => m.trim())
      .sort()
    if (allow.join() !== documented.join())
      problems.push(`${where}: Allow is ${allow.join(', ')}, the document has ${documented.join(', ')}`)
    return problems
  }

  private resolve(pointer: string): { pointer: string; value: Json } {
    let value = this.at(pointer)
    while (typeof value.$ref === 'string') {
      pointer = value.$ref.slice(1)
      value = this.at(pointer)
    }
    return { pointer, value }
  }

  private at(pointer: string): Json {
    let value: unknown = this.doc
    for (const part of pointer.split('/').slice(1))
      value = (value as Json)[part.replace(/~1/g, '/').replace(/~0/g, '~')]
    return value as Json
  }

  private checkResponse(where: string, responsePointer: string, exchange: Exchange): string[] {
    const problems: string[] = []
    const { pointer, value: response } = this.resolve(responsePointer)
    const headers = (response.headers ?? {}) as Json
    const documented = new Set(Object.keys(headers).map((h) => h.toLowerCase()))
    for (const name of Object.keys(headers)) {
      const header = this.resolve(`${pointer}/headers/${pointerSegment(name)}`).value
      const sent = exchange.headers.get(name)
      if (sent === null) {
        if (header.required) problems.push(`${where}: the required header ${name} is missing`)
        continue
      }
      const schema = header.schema as Json
      const value = schema.type === 'integer' && /^\d+$/.test(sent) ? Number(sent) : sent
      const errors = this.validate(schema, value)
      if (errors) problems.push(`${where}: header ${name}: ${sent}: ${errors}`)
    }
    for (const name of exchange.headers.keys())
      if (!documented.has(name) && !GENERIC_HEADERS.has(name) && !name.startsWith('access-control-'))
        problems.push(`${where}: the header ${name} is not documented`)
    const content = response.content as Json | undefined
    if (!content) {
      if (exchange.body !== '') problems.push(`${where}: a body where the document has none`)
      return problems
    }
    if (exchange.method === 'HEAD') return problems
    const type = (exchange.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase()
    if (!(type in content))
      return [...problems, `${where}: the media type ${type || '(none)'} is not documented`]
    if (type !== 'application/json') return problems
    let body: unknown
    try {
      body = JSON.parse(exchange.body)
    } catch {
      return [...problems, `${where}: the body is not JSON`]
    }
    const validate = this.ajv.getSchema(`openapi#${pointer}/content/${pointerSegment(type)}/schema`)!
    if (!validate(body))
      problems.push(`${where}: body: ${this.ajv.errorsText(validate.errors, { dataVar: 'body' })}`)
    return problems
  }

  private validate(schema: Json, value: unknown): string | undefined {
    const validate = this.ajv.compile(schema)
    return validate(value) ? undefined : this.ajv.errorsText(validate.errors, { dataVar: 'value' })
  }
}
