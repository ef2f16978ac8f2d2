#!/usr/bin/env bash
# The full test suite: install, build, lint, typecheck, then every package's tests. Green steps
# print one line each; a failing step or test task prints its whole output.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/ensure-pnpm.sh
source scripts/quietly.sh
quietly "install" pnpm install --frozen-lockfile
quietly "build" pnpm build
quietly "lint" pnpm lint
quietly "typecheck" pnpm typecheck
rm -rf .test-results
# turbo shows a task's log only when it fails; each suite writes its report to .test-results/.
# --only: the build above is done, so turbo does not restore it from its cache again (rewriting
# every dist/ while the suites read them).
logs=(--output-logs=errors-only --only)
status=0
echo "==> unit tests"
pnpm --silent test:unit "${logs[@]}" || status=$?
# The integration suites (*.integration.test.ts): a Docker engine, the bubblewrap sandbox, the
# built packages talking to each other, every public package installed alone from a registry.
echo "==> integration tests"
pnpm --silent test:integration "${logs[@]}" || status=$((status == 0 ? 1 : status))
# The reliability suites (packages/agent-server/reliability, packages/runtime-api/reliability): the
# built servers under attack, a few minutes; the agent-server's adds its figures to
# .test-results/reliability-figures.json.
echo "==> reliability tests"
pnpm --silent test:reliability "${logs[@]}" || status=$((status == 0 ? 1 : status))
node scripts/summarise-tests.mjs || status=$((status == 0 ? 1 : status))
exit "$status"
