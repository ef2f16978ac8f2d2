# Sourced by the other scripts. `quietly <label> <command...>` runs a command with its output
# kept in a log: one line when it succeeds, the log's last 200 lines when it fails.
quietly() {
  local label="$1" log status=0 started=$SECONDS
  shift
  log="$(mktemp "${TMPDIR:-/tmp}/agent-workspace-step.XXXXXX")"
  "$@" >"$log" 2>&1 </dev/null || status=$?
  if [ "$status" -ne 0 ]; then
    echo "==> $label failed (exit $status); its output:" >&2
    tail -n 200 "$log" >&2
    rm -f "$log"
    return "$status"
  fi
  echo "==> $label ($((SECONDS - started))s)"
  rm -f "$log"
}
