#!/usr/bin/env bash
# Installs everything, builds every package, runs the first examples, then the demo on its defaults.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/ensure-pnpm.sh
source scripts/quietly.sh
quietly "install" pnpm install --frozen-lockfile
quietly "build" pnpm build
echo "==> example 01: LocalWorkspace"
pnpm --silent example:local
echo "==> example 02: RemoteWorkspace against an agent-server"
pnpm --silent example:remote
echo "==> demo"
pnpm --silent demo
