/**
 * The console's files: one JavaScript and one CSS file, bundled and minified by Bun.build from
 * server/console/app/. The compiled binary carries them (scripts/build.ts bundles first and hands
 * the result in through `define`); from source they are built on the first request and kept for
 * the life of the process.
 */
import { join } from 'node:path'

/** A file of the console's, by the name it is served under (its content hash in it). */
export interface ConsoleAsset {
  body: string
  type: string
}

export interface ConsoleAssets {
  script: string
  style: string
  files: Record<string, ConsoleAsset>
}

// Replaced by scripts/build.ts's `define` with the bundle's JSON; absent when run from source.
declare const API_CONSOLE_BUNDLE: string | undefined

const TYPES: Record<string, string> = {
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
}

/** Bundles server/console/app/ into its files (scripts/build.ts embeds what this returns). */
export async function bundleConsole(): Promise<ConsoleAssets> {
  const result = await Bun.build({
    entrypoints: [join(import.meta.dir, 'app', 'main.tsx')],
    target: 'browser',
    minify: true,
    naming: '[name]-[hash].[ext]',
    jsx: { runtime: 'automatic', importSource: 'preact' },
  })
  if (!result.success) throw new AggregateError(result.logs, 'the console does not build')
  const assets: ConsoleAssets = { script: '', style: '', files: {} }
  for (const output of result.outputs) {
    const name = output.path.replace(/^.*\//, '')
    const ext = name.slice(name.lastIndexOf('.') + 1)
    const type = TYPES[ext]
    if (!type) continue
    assets.files[name] = { body: await output.text(), type }
    if (ext === 'js') assets.script = name
    else assets.style = name
  }
  return assets
}

/** The console's files: those compiled in, or bundled now from source. */
export function loadConsoleAssets(): Promise<ConsoleAssets> {
  if (typeof API_CONSOLE_BUNDLE === 'string') return Promise.resolve(JSON.parse(API_CONSOLE_BUNDLE))
  return bundleConsole()
}
