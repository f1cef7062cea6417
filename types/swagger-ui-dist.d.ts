// The Swagger UI files /docs serves, imported as text so that the compiled binary embeds them.
declare module 'swagger-ui-dist/swagger-ui-bundle.js' {
  const text: string
  export default text
}
declare module 'swagger-ui-dist/swagger-ui-standalone-preset.js' {
  const text: string
  export default text
}
declare module 'swagger-ui-dist/swagger-ui.css' {
  const text: string
  export default text
}
