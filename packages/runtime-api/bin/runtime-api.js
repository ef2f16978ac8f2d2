#!/usr/bin/env node
// The `runtime-api` command; a committed file, so the bin link exists before the first build.
import '../dist/cli.js';
