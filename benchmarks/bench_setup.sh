#!/usr/bin/env bash
# Times the README's two commands on fresh clones (no .venv):
#   command 1: set-up until the start page is served;
#   command 2: set-up of the test environment, then test collection (or the whole suite with --full).
# Usage: benchmarks/bench_setup.sh [--full] [REPO]   (default REPO: this checkout's committed HEAD)
set -euo pipefail
full=0; [ "${1:-}" = "--full" ] && { full=1; shift; }
repo="${1:-$(cd "$(dirname "$0")/.." && pwd)}"
work="$(mktemp -d)"
server=""
cleanup() {
  # JupyterLab is exec'd inside course.sh's own session: kill the whole group, not just the shell.
  [ -n "$server" ] && kill -- "-$server" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
chromium_before=$([ -x /usr/bin/chromium ] && echo present || echo absent)
now() { date +%s.%N; }
elapsed() { python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.0f}')" "$1" "$2"; }

git clone -q "$repo" "$work/one"
t0=$(now)
setsid bash -c "cd '$work/one' && exec ./course.sh start --no-browser --port $port -- --ServerApp.token=bench --ip=127.0.0.1" \
  >"$work/start.log" 2>&1 &
server=$!
until curl -sf "http://127.0.0.1:$port/lab/tree/course/index.ipynb?token=bench" >/dev/null; do
  sleep 0.5
  if ! kill -0 "$server" 2>/dev/null || [ "$(elapsed "$t0" "$(now)")" -gt 900 ]; then
    echo "start page not served"; cat "$work/start.log"; exit 1
  fi
done
t1=$(now)
kill -- "-$server" 2>/dev/null || true; server=""

git clone -q "$repo" "$work/two"
t2=$(now)
if [ "$full" = 1 ]; then
  (cd "$work/two" && ./course.sh test -q -p no:cacheprovider >"$work/test.log" 2>&1) || { tail -40 "$work/test.log"; exit 1; }
  what="set up -> whole suite passed ($(tail -1 "$work/test.log" | tr -d '='))"
else
  (cd "$work/two" && ./course.sh test --collect-only -q >"$work/test.log" 2>&1)
  what="set up -> tests collected"
fi
t3=$(now)

printf '| step | seconds |\n|---|---:|\n'
printf '| command 1: fresh clone -> .venv set up -> start page served | %s |\n' "$(elapsed "$t0" "$t1")"
printf '| command 2: fresh clone -> .venv + test tools %s | %s |\n' "$what" "$(elapsed "$t2" "$t3")"
printf '(Chromium was %s before the run; when present, its apt install is not in the table.)\n' "$chromium_before"
