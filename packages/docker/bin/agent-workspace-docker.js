#!/usr/bin/env node
// The `agent-workspace-docker` command; a committed file, so the bin link exists before the first build.
import '../dist/cli.js';
