/** A scope in plain words for the consent page: `write:line-items` -> "Create, change and delete line items". */
export function scopeWords(scope: string): string {
  const [action, collection = ''] = scope.split(':')
  const things = collection.replace(/-/g, ' ')
  switch (action) {
    case 'read':
      return `Read ${things}`
    case 'write':
      return `Create, change and delete ${things}`
    case 'delete':
      return `Delete whole collections of ${things} at once`
    default:
      return scope
  }
}
