# Sourced by the other scripts: makes the pnpm version pinned in package.json available.
want="$(node -p "require('./package.json').packageManager.split('@')[1]")"
if [ "$(pnpm --version 2>/dev/null || true)" != "$want" ]; then
  echo "==> installing pnpm $want"
  if ! COREPACK_INTEGRITY_KEYS=0 corepack enable 2>/dev/null \
    || ! COREPACK_INTEGRITY_KEYS=0 corepack prepare "pnpm@$want" --activate >/dev/null; then
    npm install --global "pnpm@$want"
  fi
fi
export COREPACK_INTEGRITY_KEYS=0
