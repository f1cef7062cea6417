/**
 * OpenAPI objects are built as plain JSON. The document is checked against the OpenAPI 3.1
 * schema by a validator in the tests, which is stricter than static types could be here.
 */
export type JsonObject = { [key: string]: unknown }
