/**
 * A noun with its indefinite article, for messages made from declared names: `an order`,
 * `a user`, `a line item`. Decided by spelling, which suffices for the nouns a schema declares
 * (`u` before a consonant sound, as in `user` and `unit`, takes `a`).
 */
export function withArticle(noun: string): string {
  return `${/^(?:[aeio]|u(?!s|ni))/i.test(noun) ? 'an' : 'a'} ${noun}`
}

/** A name with its first letter in upper case (`book` -> `Book`): GraphQL's and OpenAPI's type names. */
export const pascal = (name: string) => name.charAt(0).toUpperCase() + name.slice(1)
