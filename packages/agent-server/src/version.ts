import packageJson from '../package.json' with { type: 'json' };

/** Version of this package, read from its package.json (inlined by the build). */
export const VERSION: string = packageJson.version;
