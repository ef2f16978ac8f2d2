#!/usr/bin/env node
// Launcher of the single-file bundle: compiles `agent-server.cjs` with the V8 code cache next to
// it (`agent-server.cjs.cache`, written once at image build time), so a container's server skips
// parsing and compiling its code at start. Node 20 caches no ES module code, hence CommonJS, for
// the launcher too: an ES module entry costs about 5 ms more of every start (`agent-server.mjs`
// is one, kept for those who run it).
// A missing or stale cache (another Node, other V8 flags) is only slower: V8 rejects it and
// compiles as usual.
//
// AGENT_SERVER_WRITE_CODE_CACHE=1 (a build step, see the Dockerfile): start the server as the
// arguments say with a key of its own, run a client's first requests and command against it
// (`primeServer`), close it, write the cache, exit.
'use strict';
const { readFileSync, writeFileSync } = require('node:fs');
const { createRequire } = require('node:module');
const path = require('node:path');
const vm = require('node:vm');

const file = path.join(__dirname, 'agent-server.cjs');
const cacheFile = `${file}.cache`;
const writeCache = process.env.AGENT_SERVER_WRITE_CODE_CACHE === '1';
delete process.env.AGENT_SERVER_WRITE_CODE_CACHE;
// The priming requests authenticate as a container's client does; the key never leaves here.
const primingKey = writeCache ? require('node:crypto').randomBytes(32).toString('hex') : undefined;
if (primingKey) process.env.SESSION_API_KEY = primingKey;

/** The cache, unless absent or being rewritten. */
function readCache() {
  if (writeCache) return undefined;
  try {
    return readFileSync(cacheFile);
  } catch {
    return undefined;
  }
}

/** Compiles and runs the bundle, starts the server; with `writeCache`, primes it and writes the cache. */
async function main() {
  const cachedData = readCache();
  // esbuild writes ASCII only, so latin1 decodes it exactly and fastest.
  const source = readFileSync(file, 'latin1');
  const script = new vm.Script(
    `(function (exports, require, module, __filename, __dirname) {${source}\n})`,
    {
      filename: file,
      cachedData,
      // `import()` of the runtime plugins' libraries, installed next to the bundle.
      importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
    },
  );
  // Plugin packages named by `--plugin` may be ES modules: they are imported from here.
  globalThis[Symbol.for('agent-workspace.launcher-import')] = (specifier) => import(specifier);
  const codeCache = cachedData ? (script.cachedDataRejected ? 'rejected' : 'accepted') : 'absent';
  const bundle = { exports: {} };
  script.runInThisContext()(bundle.exports, createRequire(file), bundle, file, __dirname);
  const server = await bundle.exports.runCli({ codeCache });
  if (writeCache && server) {
    await bundle.exports.primeServer({ url: server.url, apiKey: primingKey });
    await server.close();
    writeFileSync(cacheFile, script.createCachedData());
    process.exit(0);
  }
}

// A failure ends the process as an unhandled rejection: the error printed, exit code 1.
void main();
