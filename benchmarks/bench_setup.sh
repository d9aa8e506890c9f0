#!/usr/bin/env bash
# Times the README's two commands on a fresh clone (no .venv): set-up plus the start page being
# served (command 1), and set-up of the test environment (command 2, collection only).
# Usage: benchmarks/bench_setup.sh [REPO]   (default: this checkout's committed HEAD)
set -euo pipefail
repo="${1:-$(cd "$(dirname "$0")/.." && pwd)}"
work="$(mktemp -d)"; trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')

git clone -q "$repo" "$work/one"
t0=$(date +%s.%N)
(cd "$work/one" && ./course.sh start --no-browser --port "$port" -- --ServerApp.token=bench --ip=127.0.0.1 >"$work/start.log" 2>&1) &
until curl -sf "http://127.0.0.1:$port/lab/tree/course/index.ipynb?token=bench" >/dev/null; do
  sleep 0.5
  [ "$(echo "$(date +%s.%N) - $t0 > 900" | bc)" = 1 ] && { echo "start page not served in 15 min"; cat "$work/start.log"; exit 1; }
done
t1=$(date +%s.%N)
kill %1 2>/dev/null || true

git clone -q "$repo" "$work/two"
t2=$(date +%s.%N)
(cd "$work/two" && ./course.sh test --collect-only -q >"$work/test.log" 2>&1)
t3=$(date +%s.%N)

printf '| step | seconds |\n|---|---|\n'
printf '| command 1: fresh clone -> .venv set up -> start page served | %.0f |\n' "$(echo "$t1 - $t0" | bc)"
printf '| command 2: fresh clone -> .venv + test tools set up -> tests collected | %.0f |\n' "$(echo "$t3 - $t2" | bc)"
printf '(Chromium was %s before the run; its apt install is not in the table when it was.)\n' \
  "$([ -x /usr/bin/chromium ] && echo present || echo absent)"
