import { config } from 'zod';

/**
 * True once this module has loaded: zod's JIT is off for this process. The server builds each
 * wire schema once and parses a few small objects per request. With the JIT, zod compiles a
 * parser per object schema with `new Function` on its first parse: code no V8 code cache keeps,
 * so the first requests after every start paid for it. zod reads the setting as each schema is
 * built, so the bundle's entry exports this first, ahead of every module that builds one.
 */
export const ZOD_JITLESS = config({ jitless: true }).jitless === true;
