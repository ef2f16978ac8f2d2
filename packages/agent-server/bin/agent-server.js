#!/usr/bin/env node
// The `agent-server` command; a committed file, so the bin link exists before the first build.
import '../dist/cli.js';
