import { ApiError, type ErrorDetail, invalid } from '../../shared/errors.ts'
import { parseTemplate, REF_NAME, stringsOf } from './references.ts'

/** Most operations in one batch (contract, "Bulk and summary"). */
export const MAX_OPERATIONS = 100
/** The writes a batch may hold. */
const METHODS = ['POST', 'PUT', 'PATCH', 'DELETE'] as const
export type BatchMethod = (typeof METHODS)[number]
/** The prefix of every operation's path: batches speak v2 only. */
export const BATCH_PREFIX = '/api/v2/'
const MAX_PATH = 2048
const OPERATION_MEMBERS = new Set(['method', 'path', 'body', 'ref', 'ifMatch'])

/** One write of a batch, its shape checked (docs/bulk.md, "Atomic batches"). */
export interface Operation {
  index: number
  /** How errors name it: `operations[3]`. */
  place: string
  method: BatchMethod
  /** As sent, references included. */
  path: string
  /** As sent, references included; undefined when the operation has none. */
  body: unknown
  ref?: string
  /** The `If-Match` value (a list of entity tags, or `*`), as the header would carry it. */
  ifMatch?: string
  /** Whether its path, or its body, names an earlier operation's result. */
  refers: { path: boolean; body: boolean }
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value)

/** The shape of one operation; problems go to `problems`, each naming its place. */
function operationOf(value: unknown, index: number, problems: ErrorDetail[]): Operation | undefined {
  const place = `operations[${index}]`
  const problem = (member: string, message: string) => {
    problems.push({ field: member ? `${place}.${member}` : place, message })
  }
  if (!isObject(value)) {
    problem('', 'must be an object with method and path')
    return undefined
  }
  const before = problems.length
  for (const name of Object.keys(value))
    if (!OPERATION_MEMBERS.has(name))
      problem(name.slice(0, 100), 'is not a member of an operation (method, path, body, ref, ifMatch)')
  const { method, path, body, ref, ifMatch } = value
  if (!METHODS.includes(method as BatchMethod)) problem('method', 'must be POST, PUT, PATCH or DELETE')
  if (typeof path !== 'string') problem('path', 'must be a string')
  else if (!path.startsWith(BATCH_PREFIX))
    problem('path', 'must be a path under /api/v2/ (a batch speaks v2; v1 takes no new endpoints)')
  else if (path.length > MAX_PATH) problem('path', `must be at most ${MAX_PATH} characters`)
  else if (/[?#]/.test(path))
    problem('path', 'must be a path alone: a write in a batch takes no query string')
  if (ref !== undefined && (typeof ref !== 'string' || !REF_NAME.test(ref)))
    problem('ref', 'must be a name of letters, digits, _ and - (at most 64), starting with a letter or _')
  if (ifMatch !== undefined && (typeof ifMatch !== 'string' || ifMatch.trim() === ''))
    problem('ifMatch', 'must be an If-Match value: entity tags ("…"), or *')
  if (method === 'DELETE' && body !== undefined) problem('body', 'a DELETE takes no body')
  if (method === 'DELETE' && ref !== undefined) problem('ref', 'a DELETE answers no record to refer to')
  if (problems.length > before) return undefined
  return {
    index,
    place,
    method: method as BatchMethod,
    path: path as string,
    body,
    ...(ref === undefined ? {} : { ref: ref as string }),
    ...(ifMatch === undefined ? {} : { ifMatch: ifMatch as string }),
    refers: { path: false, body: false },
  }
}

/**
 * Every reference of `op` must name the ref of an earlier operation; the syntax of each string
 * is checked on the way. Marks the operation as one that refers.
 */
function checkReferences(
  op: Operation,
  declared: ReadonlyMap<string, number>,
  problems: ErrorDetail[],
): void {
  const strings = [[op.path, `${op.place}.path`], ...stringsOf(op.body, `${op.place}.body`)] as const
  for (const [text, place] of strings) {
    let parts: ReturnType<typeof parseTemplate>
    try {
      parts = parseTemplate(text, place)
    } catch (error) {
      if (!(error instanceof ApiError)) throw error
      problems.push(...error.details)
      continue
    }
    for (const part of parts) {
      if (typeof part === 'string') continue
      if (place === `${op.place}.path`) op.refers.path = true
      else op.refers.body = true
      const at = declared.get(part.ref)
      if (at === undefined)
        problems.push({ field: place, message: `${part.text}: no operation has ref ${part.ref}` })
      else if (at >= op.index)
        problems.push({
          field: place,
          message: `${part.text}: ref ${part.ref} is operations[${at}], which does not come before this one`,
        })
    }
  }
}

/**
 * A batch's body -> its operations, or 422 with a detail per problem, each naming its place
 * (`operations[2].method`, `operations[3].body.authorId`): the shape of every operation, unique
 * refs, and references that name an earlier operation's ref and are well written.
 */
export function parseBatch(body: unknown): Operation[] {
  const refuse = (details: ErrorDetail[]) =>
    invalid(`The batch is not valid: ${details[0]!.field} ${details[0]!.message}.`, details)
  if (!isObject(body)) throw refuse([{ field: 'body', message: 'must be an object with operations' }])
  const extra = Object.keys(body).filter((name) => name !== 'operations')
  if (extra.length > 0)
    throw refuse(extra.map((name) => ({ field: name.slice(0, 100), message: 'is not a member of a batch' })))
  const { operations } = body
  if (!Array.isArray(operations))
    throw refuse([{ field: 'operations', message: 'must be an array of operations' }])
  if (operations.length === 0 || operations.length > MAX_OPERATIONS)
    throw refuse([
      {
        field: 'operations',
        message: `must hold 1 to ${MAX_OPERATIONS} operations; it holds ${operations.length}`,
      },
    ])
  const problems: ErrorDetail[] = []
  const ops = operations.map((value, index) => operationOf(value, index, problems))
  const declared = new Map<string, number>()
  for (const op of ops) {
    if (op?.ref === undefined) continue
    const first = declared.get(op.ref)
    if (first === undefined) declared.set(op.ref, op.index)
    else
      problems.push({
        field: `${op.place}.ref`,
        message: `${op.ref} is already the ref of operations[${first}]`,
      })
  }
  for (const op of ops) if (op) checkReferences(op, declared, problems)
  if (problems.length > 0) throw refuse(problems)
  return ops as Operation[]
}
