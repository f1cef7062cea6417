/**
 * The schema files test/schema/schema-file-problems.test.ts runs: one bad file per rule of
 * docs/schema.md with the exact lines `api-server` prints for it, and the library commented
 * everywhere a note may go.
 */
import library from './files/library.json' with { type: 'json' }

type Library = typeof library & Record<string, unknown>
// biome-ignore lint/suspicious/noExplicitAny: each case edits the file as loosely as a person would
type Loose = any

interface Case {
  name: string
  /** The file's text; or the library edited, written as JSON (or YAML with `yaml`). */
  text?: string
  edit?: (file: Loose) => void
  yaml?: boolean
  lines: string[]
}

export const edited = (edit: (file: Loose) => void): Library => {
  const file = structuredClone(library) as Library
  edit(file)
  return file
}

export const CASES: Case[] = [
  {
    name: 'JSON that does not parse',
    text: '{"resources": {,}}',
    lines: ["(the file): not valid JSON at line 1, column 16: Expected '}'"],
  },
  {
    name: 'JSON with a trailing comma, named by line and column',
    text: '{\n  "resources": {\n    "books": {"singular": "book",},\n  }\n}\n',
    lines: ['(the file): not valid JSON at line 3, column 34: Property name must be a string literal'],
  },
  {
    name: 'YAML that does not parse',
    text: 'resources:\n  books: [\n',
    yaml: true,
    lines: ['(the file): not valid YAML: Unexpected token'],
  },
  { name: 'no resources', text: '{}', lines: ['resources: required'] },
  {
    name: 'an unknown key at the top',
    edit: (f) => {
      f.version = 2
    },
    lines: ['version: unknown key'],
  },
  {
    name: 'an unknown key in a collection',
    edit: (f) => {
      f.resources.books.plural = 'books'
    },
    lines: ['resources.books.plural: unknown key'],
  },
  {
    name: 'an unknown key in an action',
    edit: (f) => {
      f.resources.books.actions.lend.when = 'now'
    },
    lines: ['resources.books.actions.lend.when: unknown key'],
  },
  {
    name: 'an unknown type',
    edit: (f) => {
      f.resources.books.fields.pages.type = 'number'
    },
    lines: [
      'resources.books.fields.pages.type: unknown type "number" (one of text, integer, boolean, enum, reference, timestamp, json, list)',
    ],
  },
  {
    name: 'an option the type does not take',
    edit: (f) => {
      f.resources.books.fields.title.maxItems = 3
    },
    lines: [
      'resources.books.fields.title.maxItems: unknown key (text takes type, description, nullable, default, required, readOnly, renamedFrom, min, max, format, filter, sort, search, unique)',
    ],
  },
  {
    name: 'search on an integer',
    edit: (f) => {
      f.resources.books.fields.pages.search = true
    },
    lines: [
      'resources.books.fields.pages.search: unknown key (integer takes type, description, nullable, default, required, readOnly, renamedFrom, min, max, filter, sort, unique, currencyField)',
    ],
  },
  {
    name: 'a filter on a json field',
    edit: (f) => {
      f.resources.books.fields.extra = { type: 'json', filter: 'eq' }
    },
    lines: [
      'resources.books.fields.extra.filter: unknown key (json takes type, description, nullable, default, required, readOnly, renamedFrom)',
    ],
  },
  {
    name: 'a range filter on text',
    edit: (f) => {
      f.resources.books.fields.isbn.filter = 'range'
    },
    lines: ['resources.books.fields.isbn.filter: must be "eq"'],
  },
  {
    name: 'min above max',
    edit: (f) => {
      f.resources.books.fields.pages.max = 0
    },
    lines: ['resources.books.fields.pages.min: min 1 is greater than max 0'],
  },
  {
    name: 'limits no value of the format fits',
    edit: (f) => {
      f.resources.authors.fields.country = { type: 'text', format: 'country', min: 3, max: 3, nullable: true }
      f.resources.authors.fields.email = { type: 'text', format: 'email', max: 4, nullable: true }
    },
    lines: [
      'resources.authors.fields.country.min: no country is between 3 and 3 characters long (a country code has 2 letters)',
      'resources.authors.fields.email.max: no email is between 1 and 4 characters long (an e-mail address has 5 to 254 characters)',
    ],
  },
  {
    name: 'no enum values',
    edit: (f) => {
      f.resources.books.fields.status.values = []
    },
    lines: ['resources.books.fields.status.values: expected array length to be greater or equal to 1'],
  },
  {
    name: 'an enum value twice',
    edit: (f) => {
      f.resources.books.fields.status.values = ['lent', 'lent']
    },
    lines: ['resources.books.fields.status.values: expected array elements to be unique'],
  },
  {
    name: 'an enum value that is not path-safe',
    edit: (f) => {
      f.resources.books.fields.status.values = ['available', 'on loan', 'lent']
    },
    lines: [
      'resources.books.fields.status.values[1]: "on loan" must be lowercase letters, digits and _, starting with a letter',
    ],
  },
  {
    name: 'a default that is not a value',
    edit: (f) => {
      f.resources.books.fields.status.default = 'gone'
    },
    lines: ['resources.books.fields.status.default: "gone" is not one of the values'],
  },
  {
    name: 'a default outside the limits',
    edit: (f) => {
      f.resources.books.fields.pages.default = 0
    },
    lines: [
      'resources.books.fields.pages.default: 0 is not a value of this field (expected integer to be greater or equal to 1)',
    ],
  },
  {
    name: 'an unknown format',
    edit: (f) => {
      f.resources.authors.fields.country.format = 'iso'
    },
    lines: ['resources.authors.fields.country.format: must be one of "email", "uri", "currency", "country"'],
  },
  {
    name: 'a reference to an undeclared collection',
    edit: (f) => {
      f.resources.books.fields.authorId.to = 'writers'
    },
    lines: ['resources.books.fields.authorId.to: no collection "writers"'],
  },
  {
    name: 'a reference whose name does not end in Id',
    edit: (f) => {
      f.resources.books.fields.writer = { type: 'reference', to: 'users' }
    },
    lines: [
      "resources.books.fields.writer: a reference's name ends in Id (writerId), which names its relation (writer)",
    ],
  },
  {
    name: 'currencyField naming no currency field',
    edit: (f) => {
      f.resources.books.fields.pages.currencyField = 'title'
    },
    lines: ['resources.books.fields.pages.currencyField: no text field "title" of format currency'],
  },
  {
    name: 'a parent that is not declared',
    edit: (f) => {
      f.resources.chapters.parent.collection = 'volumes'
    },
    lines: ['resources.chapters.parent.collection: no collection "volumes"'],
  },
  {
    name: 'a parent field that is not a read-only reference to the parent',
    edit: (f) => {
      f.resources.chapters.fields.bookId = { type: 'integer' }
    },
    lines: [
      'resources.chapters.parent.field: the field bookId must be a read-only reference to books (or left out: it is added)',
    ],
  },
  {
    name: 'parents in a cycle',
    edit: (f) => {
      f.resources.books.parent = { collection: 'chapters', field: 'chapterId' }
    },
    lines: [
      'resources.books.parent.collection: the parents form a cycle (books -> chapters -> books)',
      'resources.chapters.parent.collection: the parents form a cycle (chapters -> books -> chapters)',
    ],
  },
  {
    name: 'a prefix twice',
    edit: (f) => {
      f.resources.chapters.prefix = 'bok'
    },
    lines: ['resources.chapters.prefix: bok is also the prefix of books'],
  },
  {
    name: "the prefix of the service's users",
    edit: (f) => {
      f.resources.authors.prefix = 'usr'
    },
    lines: ["resources.authors.prefix: usr is also the prefix of the service's users"],
  },
  {
    name: "the prefix of the service's deliveries",
    edit: (f) => {
      f.resources.authors.prefix = 'whd'
    },
    lines: ["resources.authors.prefix: whd is also the prefix of the service's deliveries"],
  },
  {
    name: 'a prefix of 5 letters',
    edit: (f) => {
      f.resources.authors.prefix = 'autho'
    },
    lines: ['resources.authors.prefix: a prefix is 2 to 4 lowercase letters (bok)'],
  },
  {
    name: 'a singular twice',
    edit: (f) => {
      f.resources.chapters.singular = 'book'
    },
    lines: ['resources.chapters.singular: book is also the singular of books'],
  },
  {
    name: 'a singular not in camelCase',
    edit: (f) => {
      f.resources.books.singular = 'Book'
    },
    lines: ['resources.books.singular: a singular is camelCase (book, lineItem)'],
  },
  ...['users', 'events', 'webhook-endpoints', 'deliveries', 'oauth-clients'].map((name) => ({
    name: `the service's own ${name}`,
    edit: (f: Loose) => {
      f.resources[name] = { singular: 'thing', prefix: 'thg', fields: { name: { type: 'text' } } }
    },
    lines: [`resources.${name}: ${name} is the service's own collection`],
  })),
  ...['search', 'openapi.json', 'batch', 'aggregates', 'versions'].map((name) => ({
    name: `the reserved ${name}`,
    edit: (f: Loose) => {
      f.resources[name] = { singular: 'thing', prefix: 'thg', fields: { name: { type: 'text' } } }
    },
    // A key with a dot is quoted, so the place reads as one key.
    lines: [
      `resources.${name.includes('.') ? JSON.stringify(name) : name}: ${name} is reserved (the service's /api/v2/${name})`,
    ],
  })),
  {
    name: "a collection named like the service's tables",
    edit: (f) => {
      f.resources.orgs = { singular: 'org', prefix: 'orx', fields: { name: { type: 'text' } } }
    },
    lines: ["resources.orgs: orgs is reserved (the service's storage)"],
  },
  {
    name: 'a collection name that is not lowercase',
    edit: (f) => {
      f.resources.Novels = { singular: 'novel', prefix: 'nov', fields: { name: { type: 'text' } } }
    },
    lines: [
      "resources.Novels: a collection's name is lowercase and plural, words joined by - (books, line-items)",
    ],
  },
  {
    name: 'a field not in camelCase',
    edit: (f) => {
      f.resources.books.fields.page_count = { type: 'integer' }
    },
    lines: ["resources.books.fields.page_count: a field's name is camelCase (title, authorId)"],
  },
  ...['id', 'createdAt', 'updatedAt', 'orgId'].map((name) => ({
    name: `the reserved field ${name}`,
    edit: (f: Loose) => {
      f.resources.books.fields[name] = { type: 'text' }
    },
    lines: [`resources.books.fields.${name}: ${name} is reserved: every record has it`],
  })),
  {
    name: 'a filter whose parameter every list takes',
    edit: (f) => {
      f.resources.books.fields.perPage = { type: 'integer', filter: 'eq' }
    },
    lines: [
      'resources.books.fields.perPage.filter: its query parameter per_page is one every list already takes',
    ],
  },
  {
    name: 'a read-only field that is required',
    edit: (f) => {
      f.resources.books.fields.shelf = { type: 'text', readOnly: true, required: true, default: 'a' }
    },
    lines: [
      'resources.books.fields.shelf.required: a read-only field cannot be required (no client may send it)',
    ],
  },
  {
    name: 'a field that may be left out with nothing to hold',
    edit: (f) => {
      f.resources.books.fields.shelf = { type: 'text', required: false }
    },
    lines: [
      'resources.books.fields.shelf.required: a field that may be left out needs a default or nullable: true',
    ],
  },
  {
    name: 'a read-only field with nothing to hold',
    edit: (f) => {
      f.resources.books.fields.shelf = { type: 'text', readOnly: true }
    },
    lines: [
      'resources.books.fields.shelf.readOnly: a read-only field needs a default or nullable: true, or no record could be made',
    ],
  },
  {
    name: 'a unique read-only field with a default',
    edit: (f) => {
      f.resources.books.fields.shelf = { type: 'text', readOnly: true, unique: true, default: 'a' }
    },
    lines: [
      'resources.books.fields.shelf.unique: a read-only field starts at its default in every record, so a second record could not be made',
    ],
  },
  {
    name: 'two filters giving one query parameter',
    edit: (f) => {
      f.resources.books.fields.pagesGte = { type: 'integer', filter: 'eq' }
    },
    lines: [
      'resources.books.fields.pagesGte.filter: its query parameter pages_gte is also the filter of pages',
    ],
  },
  {
    name: "a filter named like GraphQL's first",
    edit: (f) => {
      f.resources.books.fields.first = { type: 'boolean', filter: 'eq' }
    },
    lines: ['resources.books.fields.first.filter: its query parameter first is one every list already takes'],
  },
  {
    name: 'a collection with no field a client may write',
    edit: (f) => {
      f.resources.tags = {
        singular: 'tag',
        prefix: 'tag',
        fields: { label: { type: 'text', readOnly: true, default: 'x' } },
      }
    },
    lines: ['resources.tags.fields: declares no field a client may write'],
  },
  {
    name: 'an action naming a missing field',
    edit: (f) => {
      f.resources.books.actions.lend.field = 'state'
    },
    lines: ['resources.books.actions.lend.field: no field "state"'],
  },
  {
    name: 'an action to a state the field cannot hold',
    edit: (f) => {
      f.resources.books.actions.lend.to = 'borrowed'
    },
    lines: ['resources.books.actions.lend.to: "borrowed" is not a state of status'],
  },
  {
    name: 'an action on a field that holds no state',
    edit: (f) => {
      f.resources.books.actions.lend.field = 'title'
    },
    lines: ['resources.books.actions.lend.field: title must be an enum or boolean field to hold a state'],
  },
  {
    name: 'an action named like a nested collection',
    edit: (f) => {
      f.resources.books.actions.chapters = { ...f.resources.books.actions.lend, past: 'chaptered' }
    },
    lines: [
      'resources.books.actions.chapters: the nested collection chapters has this path (/books/{id}/chapters)',
    ],
  },
  {
    name: 'an action whose event is every update',
    edit: (f) => {
      f.resources.books.actions.lend.past = 'updated'
    },
    lines: ['resources.books.actions.lend.past: book.updated is the event of every update'],
  },
  {
    name: "a GraphQL type of the service's",
    edit: (f) => {
      f.resources.pages = { singular: 'pageInfo', prefix: 'pgi', fields: { name: { type: 'text' } } }
    },
    lines: ['resources.pages.singular: gives the GraphQL type PageInfo, which the service has'],
  },
  {
    name: 'two collections giving one GraphQL type',
    edit: (f) => {
      f.resources.listings = {
        singular: 'authorConnection',
        prefix: 'lst',
        fields: { name: { type: 'text' } },
      }
    },
    lines: ['resources.listings.singular: gives the GraphQL type AuthorConnection, which authors gives too'],
  },
  {
    name: 'an action giving the mutation of a create',
    edit: (f) => {
      f.resources.books.actions.create = { ...f.resources.books.actions.lend, past: 'made' }
    },
    lines: ['resources.books.actions.create: gives the GraphQL mutation createBook twice'],
  },
  {
    name: 'a relation that clashes with a field',
    edit: (f) => {
      f.resources.books.fields.author = { type: 'text' }
    },
    lines: ['resources.books.fields.authorId: its relation author clashes with the field author'],
  },
  {
    name: 'an unknown type, in YAML',
    yaml: true,
    edit: (f) => {
      f.resources.books.fields.pages.type = 'number'
    },
    lines: [
      'resources.books.fields.pages.type: unknown type "number" (one of text, integer, boolean, enum, reference, timestamp, json, list)',
    ],
  },
  {
    name: 'a reference to an undeclared collection, in YAML',
    yaml: true,
    edit: (f) => {
      f.resources.books.fields.authorId.to = 'writers'
    },
    lines: ['resources.books.fields.authorId.to: no collection "writers"'],
  },
  {
    name: 'several problems at once, each listed',
    edit: (f) => {
      f.resources.books.fields.authorId.to = 'writers'
      f.resources.chapters.prefix = 'bok'
      f.resources.books.actions.lend.to = 'borrowed'
    },
    lines: [
      'resources.chapters.prefix: bok is also the prefix of books',
      'resources.books.fields.authorId.to: no collection "writers"',
      'resources.books.actions.lend.to: "borrowed" is not a state of status',
    ],
  },
  {
    name: 'several problems of shape at once, each listed',
    edit: (f) => {
      f.extra = true
      f.resources.books.fields.pages.type = 'number'
      f.resources.books.fields.title.max = 'long'
    },
    lines: [
      'extra: unknown key',
      'resources.books.fields.title.max: expected integer',
      'resources.books.fields.pages.type: unknown type "number" (one of text, integer, boolean, enum, reference, timestamp, json, list)',
    ],
  },
]

/** The library with a note at every level a note may go, as a starter is commented. */
export const commented = edited((f) => {
  f.$comment = 'the file'
  f.resources.$comment = 'the collections'
  f.resources.books.$comment = 'a collection'
  f.resources.books.fields.$comment = 'the fields'
  f.resources.books.fields.pages.$comment = 'a field'
  f.resources.books.actions.$comment = 'the actions'
  f.resources.books.actions.lend.$comment = 'an action'
  f.resources.chapters.parent.$comment = 'the parent'
  f.resources.books.description = 'Books on the shelves.'
  f.resources.books.fields.title.description = 'As printed on the cover.'
  f.resources.books.fields.notes = { type: 'json', nullable: true, default: { $comment: 'kept: a value' } }
})
