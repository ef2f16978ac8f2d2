#!/usr/bin/env bash
# The full test suite: install, build, lint, typecheck, then every package's tests.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/ensure-pnpm.sh
pnpm install --frozen-lockfile
pnpm build
pnpm lint
pnpm typecheck
rm -rf .test-results
status=0
pnpm test:unit || status=$?
# The integration suites (*.integration.test.ts): a Docker engine, the bubblewrap sandbox, the
# built packages talking to each other; each writes its own report to .test-results/.
pnpm test:integration || status=$((status == 0 ? 1 : status))
# The agent-server reliability suite (packages/agent-server/reliability): the built server under
# attack, a few minutes; it adds its figures to .test-results/reliability-figures.json.
pnpm test:reliability || status=$((status == 0 ? 1 : status))
node scripts/summarise-tests.mjs || status=$((status == 0 ? 1 : status))
exit "$status"
