#!/usr/bin/env node
// The bundle's launcher as an ES module, for those who run `node agent-server.mjs`: it runs
// `agent-server-launcher.cjs`, which images start directly (a CommonJS entry starts faster).
import './agent-server-launcher.cjs';
