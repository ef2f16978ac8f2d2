#!/usr/bin/env bash
# Installs everything, builds every package and runs the main example on its defaults.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/ensure-pnpm.sh
pnpm install --frozen-lockfile
pnpm build
pnpm example:local
pnpm example:remote
