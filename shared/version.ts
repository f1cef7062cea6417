import manifest from '../package.json' with { type: 'json' }

/** The product's version, package.json's; `bun build --compile` embeds it in the executables. */
export const PRODUCT_VERSION: string = manifest.version
