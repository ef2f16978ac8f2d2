#!/usr/bin/env bash
# Installs everything, builds every package, runs the first examples, then the demo on its defaults.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/ensure-pnpm.sh
pnpm install --frozen-lockfile
pnpm build
pnpm example:local
pnpm example:remote
pnpm demo
