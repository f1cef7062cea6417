/** One case per kind of change, from LIBRARY: the next declaration, and what its plan must say. */
import type { SchemaDeclaration } from '../../shared/schema/declaration.ts'
import { bookField, library } from './change-library.ts'

interface Case {
  name: string
  next: SchemaDeclaration
  /** The plan's descriptions, each with whether it is destructive. */
  plan: [string, boolean][]
  /** The records cannot all be kept (the plan refuses, or the apply must fail with them). */
  refusedWithRecords?: boolean
}

/** Every kind of change, from LIBRARY. */
export const CASES: Case[] = [
  {
    name: 'a new collection',
    next: library((r) => {
      r.shelves = {
        singular: 'shelf',
        prefix: 'shf',
        fields: { label: { type: 'text', search: true, unique: true } },
      }
    }),
    plan: [['add collection shelves (label)', false]],
  },
  {
    name: 'a removed collection',
    next: library((r) => {
      delete r.chapters
    }),
    plan: [['remove collection chapters: its records are lost', true]],
  },
  {
    name: 'a removed collection with the reference to it, and a parent with its nested collection',
    next: library((r) => {
      delete r.books!.fields.authorId
      delete r.authors
      r.shelves = { singular: 'shelf', prefix: 'shf', fields: { label: { type: 'text' } } }
    }),
    plan: [
      ['add collection shelves (label)', false],
      ['remove field books.authorId: its values are lost', true],
      ['rebuild table books for the changes above (rows, ids, events and search kept)', false],
      ['remove collection authors: its records are lost', true],
    ],
  },
  {
    name: 'a renamed collection, with its nested collection following it',
    next: library((r) => {
      r.volumes = { ...r.books!, renamedFrom: 'books' }
      delete r.books
      r.chapters!.parent = { collection: 'volumes', field: 'bookId' }
    }),
    plan: [['rename collection books to volumes (records, ids and history kept)', false]],
  },
  {
    name: 'a new nullable field',
    next: bookField('subtitle', () => ({ type: 'text', nullable: true, search: true })),
    plan: [
      ['add field books.subtitle (text, nullable)', false],
      ['search books by title, subtitle (was: title)', false],
    ],
  },
  {
    name: 'new fields with defaults: an integer, a boolean and a list',
    next: library((r) => {
      r.books!.fields.copies = { type: 'integer', default: 1, filter: 'eq', sort: true }
      r.books!.fields.signed = { type: 'boolean', default: false }
      r.books!.fields.labels = { type: 'list', default: ['new'] }
    }),
    plan: [
      ['add field books.copies (integer, default 1)', false],
      ['add field books.signed (boolean, default false)', false],
      ['add field books.labels (list, default ["new"])', false],
    ],
  },
  {
    name: 'a new required field without default',
    next: bookField('edition', () => ({ type: 'integer' })),
    plan: [
      ['add field books.edition (integer, required, no default): refused while books has records', false],
      ['rebuild table books for the changes above (rows, ids, events and search kept)', false],
    ],
    refusedWithRecords: true,
  },
  {
    name: 'a removed field',
    next: bookField('isbn', () => undefined),
    plan: [['remove field books.isbn: its values are lost', true]],
  },
  {
    name: 'a removed searched field',
    next: library((r) => {
      delete r.authors!.fields.name
    }),
    plan: [
      ['remove field authors.name: its values are lost', true],
      ['stop searching authors (name)', false],
    ],
  },
  {
    name: 'a removed reference',
    next: bookField('authorId', () => undefined),
    plan: [
      ['remove field books.authorId: its values are lost', true],
      ['rebuild table books for the changes above (rows, ids, events and search kept)', false],
    ],
  },
  {
    name: 'a renamed searched and sorted field',
    next: library((r) => {
      const { title, ...rest } = r.books!.fields
      r.books!.fields = { name: { ...title!, renamedFrom: 'title' }, ...rest }
    }),
    plan: [
      ['rename field books.title to books.name (values kept)', false],
      ['make the search of books again (name)', false],
    ],
  },
  {
    name: 'a renamed reference',
    next: library((r) => {
      const { authorId, ...rest } = r.books!.fields
      r.books!.fields = { ...rest, writerId: { ...authorId!, renamedFrom: 'authorId' } }
    }),
    plan: [['rename field books.authorId to books.writerId (values kept)', false]],
  },
  {
    name: 'a new enum value',
    next: bookField('status', (f) => ({ ...f, values: ['available', 'lent', 'lost', 'repair'] })),
    plan: [['add values repair to books.status', false]],
  },
  {
    name: 'a removed enum value',
    next: bookField('status', (f) => ({ ...f, values: ['available', 'lent'] })),
    plan: [['remove values lost from books.status: records holding them no longer validate', true]],
  },
  {
    name: 'a wider limit',
    next: bookField('title', (f) => ({ ...f, max: 1000 })),
    plan: [['widen books.title (max 300 to 1000)', false]],
  },
  {
    name: 'a narrower limit',
    next: bookField('pages', (f) => ({ ...f, max: 400 })),
    plan: [['narrow books.pages (max none to 400): stored values outside it no longer validate', true]],
  },
  {
    name: 'a field that becomes nullable',
    next: bookField('pages', (f) => ({ ...f, nullable: true })),
    plan: [
      ['make books.pages nullable', false],
      ['rebuild table books for the changes above (rows, ids, events and search kept)', false],
    ],
  },
  {
    name: 'a field that stops being nullable',
    next: library((r) => {
      r.authors!.fields.country = { ...r.authors!.fields.country!, nullable: undefined }
    }),
    plan: [
      ['make authors.country not nullable: records holding null make the apply fail', true],
      ['rebuild table authors for the changes above (rows, ids, events and search kept)', false],
    ],
    refusedWithRecords: true,
  },
  {
    name: 'a changed type',
    next: bookField('pages', () => ({ type: 'text', max: 10, filter: 'eq' })),
    plan: [
      [
        'change type of books.pages from integer to text: values that do not convert make the apply fail',
        true,
      ],
      ['filter books by pages (eq)', false],
      ['stop sorting books by pages', false],
      ['rebuild table books for the changes above (rows, ids, events and search kept)', false],
    ],
  },
  {
    name: 'a format dropped (an email address, whose column ignores case)',
    next: library((r) => {
      r.authors!.fields.contact = { type: 'text', nullable: true }
    }),
    plan: [
      ['drop format email of authors.contact', false],
      ['rebuild table authors for the changes above (rows, ids, events and search kept)', false],
    ],
  },
  {
    name: 'a renamed collection whose fields are renamed and changed in the same plan',
    next: library((r) => {
      const { title, pages, ...rest } = r.books!.fields
      r.volumes = {
        ...r.books!,
        renamedFrom: 'books',
        fields: { name: { ...title!, renamedFrom: 'title' }, pages: { ...pages!, nullable: true }, ...rest },
      }
      delete r.books
      r.chapters!.parent = { collection: 'volumes', field: 'bookId' }
    }),
    plan: [
      ['rename collection books to volumes (records, ids and history kept)', false],
      ['rename field volumes.title to volumes.name (values kept)', false],
      ['make volumes.pages nullable', false],
      ['make the search of volumes again (name)', false],
      ['rebuild table volumes for the changes above (rows, ids, events and search kept)', false],
    ],
  },
  {
    name: 'filters and sorts added and removed',
    next: library((r) => {
      const f = r.books!.fields
      f.title = { ...f.title!, filter: 'eq', sort: undefined }
      f.pages = { ...f.pages!, filter: undefined }
    }),
    plan: [
      ['filter books by title (eq)', false],
      ['stop sorting books by title', false],
      ['stop filtering books by pages', false],
    ],
  },
  {
    name: 'a new unique',
    next: library((r) => {
      r.chapters!.fields.title = { ...r.chapters!.fields.title!, unique: true }
    }),
    plan: [['make chapters.title unique: duplicates make the apply fail', false]],
  },
  {
    name: 'a changed description, summary and action',
    next: library((r) => {
      r.books!.description = 'Books on the shelves'
      r.books!.actions!.lend = { ...r.books!.actions!.lend!, summary: 'Lend a book' }
      r.books!.fields.title = { ...r.books!.fields.title!, description: 'As printed' }
    }),
    plan: [
      ['change description, actions of books', false],
      ['change description of books.title', false],
    ],
  },
  {
    name: 'a changed prefix',
    next: library((r) => {
      r.books!.prefix = 'bk'
    }),
    plan: [
      [
        'change the id prefix of books from bok to bk: stored ids keep bok and would no longer match it, nor would references to them (declare a new collection instead)',
        true,
      ],
    ],
  },
]
