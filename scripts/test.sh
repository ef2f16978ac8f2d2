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
node scripts/summarise-tests.mjs || status=$((status == 0 ? 1 : status))
exit "$status"
