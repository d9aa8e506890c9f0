"""What one student's server and lesson kernel cost, with everything installed on and with `course hub`'s
student config (coursekit/app/hub/classroom.py `write_server_config`), in the same run.

    .venv/bin/python benchmarks/bench_server_memory.py [--rounds 2]

For each config, a JupyterLab server (`jupyter lab`, the same server extensions jupyterhub-singleuser
loads) starts on a copy of the lessons with JUPYTER_CONFIG_PATH as `course hub` sets it for a student;
the benchmark waits for it, loads /lab (the page a student opens) and nbgrader's assignment list, then
opens a lesson (LESSON) as a session and runs all its code cells over the kernel websocket. It prints the
server's CPU seconds to start, its RSS and PSS after the page and after the lesson, and the kernel's.
Rounds alternate the configs so machine load falls on each alike; the table shows the median per config.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import secrets
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from conftest import free_port  # noqa: E402 - imported after the sys.path set-up above
from coursekit.app.hub.classroom import COURSE_ID, write_server_config  # noqa: E402 - imported after the sys.path set-up above
from lesson_client import LESSON, close_session, code_cells, open_session, process_memory, run_cells  # noqa: E402 - imported after the sys.path set-up above

# the student config before this trim (commit 6f4c20c): only the formgrader switched off
BEFORE = {"ServerApp": {"jpserver_extensions": {"nbgrader.server_extensions.formgrader": False}}}


def configs(base: Path) -> dict[str, str]:
    """JUPYTER_CONFIG_PATH per config, as coursekit/app/hub/config.py `server_environment` builds it."""
    after = base / "after"
    (base / "exchange").mkdir()
    write_server_config(after, base / "exchange")
    before = base / "before"
    shutil.copytree(after, before)
    (before / "student" / "jupyter_server_config.json").write_text(json.dumps(BEFORE))
    return {"everything installed": str(after),       # the shared folder only: no student switches
            "student, before": os.pathsep.join([str(before / "student"), str(before)]),
            "student, after": os.pathsep.join([str(after / "student"), str(after)])}


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def measure(config_path: str, home: Path, cells: list[str]) -> dict:
    port, token = free_port(), secrets.token_hex(16)
    env = dict(os.environ, JUPYTER_CONFIG_PATH=config_path, COURSE_ROOT=str(ROOT))
    server = subprocess.Popen([sys.executable, "-m", "jupyterlab", "--no-browser", "--allow-root", f"--port={port}",
                               "--ip=127.0.0.1", f"--ServerApp.token={token}", f"--ServerApp.root_dir={home}"],
                              env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    base, auth = f"http://127.0.0.1:{port}", {"Authorization": f"token {token}"}
    try:
        began = time.monotonic()
        while True:
            if server.poll() is not None:
                raise RuntimeError(f"jupyter lab exited {server.returncode}: {server.stderr.read().decode()[-2000:]}")
            try:
                if requests.get(f"{base}/api/status", headers=auth, timeout=2).status_code == 200:
                    break
            except requests.RequestException:
                pass
            time.sleep(0.2)
        ready_s, start_cpu = time.monotonic() - began, cpu_seconds(server.pid)
        assert requests.get(f"{base}/lab", headers=auth, timeout=60).status_code == 200
        listed = requests.get(f"{base}/assignments", params={"course_id": COURSE_ID}, headers=auth, timeout=60)     # nbgrader's Assignments panel
        assert listed.status_code == 200 and listed.json()["success"], listed.text[:300]
        server_page = process_memory(server.pid)
        session, kernel = open_session(base, token, f"lessons/{LESSON}")
        latencies = asyncio.run(run_cells(base, token, kernel, cells))
        kernel_pid = int(subprocess.run(["pgrep", "-P", str(server.pid)], capture_output=True, text=True).stdout.split()[0])
        kernel_mem, server_lesson = process_memory(kernel_pid), process_memory(server.pid)
        close_session(base, token, session)
        return {"ready_s": ready_s, "start_cpu_s": start_cpu, "server_page": server_page,
                "server_lesson": server_lesson, "kernel": kernel_mem, "lesson_s": sum(latencies)}
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    base = Path(tempfile.mkdtemp(prefix="bench-server-memory-"))
    try:
        home = base / "home"
        shutil.copytree(ROOT / "course", home / "lessons")
        cells = code_cells(home / "lessons" / LESSON)
        found: dict[str, list[dict]] = {}
        paths = configs(base)
        for _ in range(args.rounds):
            for name, config_path in paths.items():
                found.setdefault(name, []).append(measure(config_path, home, cells))
        load = open("/proc/loadavg").read().split()[0]
        print(f"lesson: {LESSON} ({len(cells)} code cells); rounds: {args.rounds}; load average after: {load}")
        print("| config | server start s (CPU s) | server RSS / PSS MiB, /lab open | server RSS / PSS MiB, after lesson "
              "| kernel RSS / PSS MiB, after lesson | server + kernel PSS MiB | lesson cells s |")
        print("|---|---|---|---|---|---|---|")
        med = lambda runs, key, i=None: statistics.median(r[key] if i is None else r[key][i] for r in runs)
        for name, runs in found.items():
            print(f"| {name} | {med(runs, 'ready_s'):.1f} ({med(runs, 'start_cpu_s'):.1f}) "
                  f"| {med(runs, 'server_page', 0):.0f} / {med(runs, 'server_page', 1):.0f} "
                  f"| {med(runs, 'server_lesson', 0):.0f} / {med(runs, 'server_lesson', 1):.0f} "
                  f"| {med(runs, 'kernel', 0):.0f} / {med(runs, 'kernel', 1):.0f} "
                  f"| {med(runs, 'server_lesson', 1) + med(runs, 'kernel', 1):.0f} | {med(runs, 'lesson_s'):.1f} |")
        return 0
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
