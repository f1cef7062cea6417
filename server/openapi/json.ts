/**
 * OpenAPI objects are built as plain JSON. The tests hold the documents to more than static types
 * could here: the OpenAPI 3.1 and 3.2 schemas, Redocly's linter, and real responses validated
 * against them (test/openapi/).
 */
export type JsonObject = { [key: string]: unknown }
