#!/usr/bin/env bash
# One entry point for a fresh machine with Python 3.11:
#   ./course.sh start [course start options]   set up .venv and open the course in JupyterLab
#   ./course.sh test  [pytest options]         set up .venv plus test tools and run the whole suite
#   ./course.sh hub   --roster CSV [options]   set up .venv plus JupyterHub and serve a class (as root)
#   ./course.sh site  [--out DIR]              set up .venv plus Sphinx/MyST-NB (and MathJax from npm) and build the course website
# Set-up is idempotent: a second run only checks that everything is already installed.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"
venv="${COURSE_VENV:-$here/.venv}"
python="${PYTHON:-python3}"
stamp="$venv/.course-setup"

die() { echo "course.sh: $*" >&2; exit 1; }
# pip warns once per package about find-links folders it cannot use; keep real errors only.
quiet_pip() { grep -v "is ignored: it is neither a file nor a directory" || true; }

make_venv() {
  if [ ! -x "$venv/bin/python" ]; then
    "$python" -c 'import sys; sys.exit(sys.version_info < (3, 10))' \
      || die "Python 3.10 or newer is needed (found $("$python" --version 2>&1)); set PYTHON=/path/to/python3.11"
    echo "==> creating virtual environment in $venv"
    "$python" -m venv "$venv"
  fi
}

# An earlier install of these extras or more, from the same pyproject and constraints: `hub` after
# `test` ([test,hub,site]) has everything it needs and reinstalled both steps for nothing.
covered() {  # $1 = extras spec, $2 = hash of pyproject and constraints
  local line have extra missing
  [ -f "$stamp" ] || return 1
  while IFS= read -r line; do
    [ "${line##*:}" = "$2" ] || continue
    have="${line%:*}"; have=",${have//[\[\]]/},"; missing=0
    for extra in ${1//[\[\],]/ }; do
      case "$have" in *",$extra,"*) ;; *) missing=1 ;; esac
    done
    [ "$missing" = 0 ] && return 0
  done <"$stamp"
  return 1
}

# pip install, but only when pyproject/constraints changed since the last successful install.
pip_install() {  # $1 = extras spec, e.g. "" or "[test]"
  local hash; hash="$(cat pyproject.toml constraints-cpu.txt | sha256sum | cut -c1-16)"
  local want="$1:$hash"
  if covered "$1" "$hash"; then return; fi
  echo "==> installing the course into $venv (step 1 of 2: PyTorch; step 2: JupyterLab and the rest)"
  # Torch first and pinned, so no other requirement can pull a multi-GB CUDA build by accident;
  # coursekit/app/torch_wheel.py picks the build (CPU on Linux without an NVIDIA GPU; COURSE_TORCH overrides).
  local torch_args; torch_args="$("$venv/bin/python" coursekit/app/torch_wheel.py constraints-cpu.txt)" || exit 1
  # --no-compile: Python compiles each module on its first import instead of all ~14k files up front
  # (fresh set-up of command 1 went from 133 s to 80 s; benchmarks/RESULTS.md#set-up-times).
  # shellcheck disable=SC2086
  "$venv/bin/python" -m pip install --quiet --no-compile -c constraints-cpu.txt ${COURSE_PIP_ARGS:-} $torch_args torch 2> >(quiet_pip >&2)
  echo "==> installing JupyterLab, nbgrader, ipywidgets, matplotlib and the course package${1:+ with extras $1} (a minute or two the first time)"
  # shellcheck disable=SC2086
  "$venv/bin/python" -m pip install --quiet --no-compile -c constraints-cpu.txt ${COURSE_PIP_ARGS:-} -e ".$1" 2> >(quiet_pip >&2)
  echo "==> set-up done"
  echo "$want" >>"$stamp"
}

install_browser() {
  if [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ]; then return; fi
  echo "==> installing Debian's chromium and chromium-driver for the browser tests"
  local sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
  command -v apt-get >/dev/null || die "no /usr/bin/chromium and no apt-get: install Chromium, then set COURSE_CHROMIUM=/path/to/chromium"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium chromium-driver >/dev/null
}

# npm packages, pinned by a package-lock.json and installed into that folder's node_modules (never a CDN):
# tests/a11y holds axe-core (the accessibility checker the browser tests inject into Chromium);
# coursekit/app/site holds what the website serves from its own folder (MathJax, RequireJS, the
# widgets' HTML manager).
npm_ci() {  # $1 = folder with package.json and package-lock.json, $2 = what it is, for the log
  local dir="$here/$1" want
  want="$(sha256sum "$dir/package-lock.json" | cut -c1-16)"
  if [ -f "$dir/node_modules/.course-lock" ] && [ "$(cat "$dir/node_modules/.course-lock")" = "$want" ]; then return; fi
  if ! command -v npm >/dev/null; then
    echo "==> installing Debian's nodejs and npm for $2"
    local sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
    command -v apt-get >/dev/null || die "no npm and no apt-get: install Node.js 18+ with npm, then run ./course.sh again"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq nodejs npm >/dev/null
  fi
  echo "==> installing $2 from npm into $1 (pinned by its package-lock.json)"
  (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error) || die "npm ci in $1 failed"
  echo "$want" >"$dir/node_modules/.course-lock"
}
# Class accounts cannot write __pycache__ into this root-owned environment: compile it once per install
# (coursekit/app/precompile.py), not at every hub start.
compile_env() {
  local want; want="$(sha256sum "$stamp" | cut -c1-16)"
  if [ -f "$venv/.course-compiled" ] && [ "$(cat "$venv/.course-compiled")" = "$want" ]; then return; fi
  "$venv/bin/python" -m coursekit.app.precompile
}

install_axe() { npm_ci tests/a11y "axe-core (the accessibility tests)"; }
install_site_js() { npm_ci coursekit/app/site "MathJax, RequireJS and the widgets' HTML manager (the website)"; }

cmd="${1:-}"; [ $# -gt 0 ] && shift
case "$cmd" in
  start)
    make_venv; pip_install ""
    exec "$venv/bin/course" start "$@" ;;
  test)
    make_venv; pip_install "[test,hub,site]"; compile_env; install_browser; install_axe; install_site_js
    exec "$venv/bin/python" -m pytest "$@" ;;
  hub)
    make_venv; pip_install "[hub]"; [ "${1:-}" = stop ] || compile_env    # stopping a class starts no server
    exec "$venv/bin/course" hub "$@" ;;
  site)
    make_venv; pip_install "[site]"; install_site_js
    exec "$venv/bin/course" site "$@" ;;
  *)
    echo "usage: ./course.sh start [--port N] [--no-browser]   |   ./course.sh test [pytest args]   |   ./course.sh hub --roster CSV   |   ./course.sh site" >&2
    exit 2 ;;
esac
