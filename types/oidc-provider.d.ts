// The part of oidc-provider (a devDependency: the tests' upstream OpenID Connect provider) the
// tests use; the package ships JavaScript without declarations.
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http'

  interface KoaContext {
    path: string
    body: unknown
  }
  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>)
    use(middleware: (ctx: KoaContext, next: () => Promise<void>) => Promise<void>): void
    callback(): (req: IncomingMessage, res: ServerResponse) => void
  }
}
