// autocannon ships no types; this declares the part of its programmatic API the benchmark uses.
declare module 'autocannon' {
  interface AutocannonRequest {
    method?: string
    path?: string
    headers?: Record<string, string>
    body?: string
  }

  interface AutocannonOptions {
    url: string
    connections?: number
    duration?: number
    headers?: Record<string, string>
    requests?: (AutocannonRequest & {
      setupRequest?: (request: AutocannonRequest) => AutocannonRequest
    })[]
  }

  interface AutocannonResult {
    /** Seconds the run took. */
    duration: number
    errors: number
    timeouts: number
    non2xx: number
  }

  interface Instance extends PromiseLike<AutocannonResult> {
    on(
      event: 'response',
      listener: (client: unknown, statusCode: number, bytes: number, responseTime: number) => void,
    ): this
  }

  function autocannon(options: AutocannonOptions): Instance
  export default autocannon
}
