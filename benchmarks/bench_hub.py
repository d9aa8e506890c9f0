"""Load on one machine: N simulated students log in to `course hub`, start servers, run one cell each.

    sudo .venv/bin/python benchmarks/bench_hub.py --students 20 [--timeout 600] [--concurrent]

Everything goes over loopback through the proxy: the login form, the hub's REST API (start server),
the student's own server (start a kernel, run `sum(range(10**6))` over the kernel websocket). Prints
time to a ready server (median, worst), time for the cell, and resident memory per student (server +
kernel). --concurrent sends every start request at once (a class arriving together), so the median and
worst time to ready are each student's own; without it the requests go one after another, each blocking
up to JupyterHub's 10 s slow-spawn wait. The accounts are temporary (tests/hub_server.py) and removed at the end.

A class over time (benchmarks/hub_class.py):

    sudo .venv/bin/python benchmarks/bench_hub.py --arrivals 100 --window 600 --active 20 --work 120 --pause 5
    sudo .venv/bin/python benchmarks/bench_hub.py --arrivals 50 --window 60 --active 50

--arrivals students arrive evenly over --window seconds; at most --active work at once (a later one waits
for a place). Each logs in, gets a server, opens a lesson and runs all its code cells through the kernel
(benchmarks/lesson_client.py), again from the top until --work seconds have passed (--pause seconds of
reading between cells), closes it and leaves; the server stays until the idle culler stops it. With
100 arriving over 600 s and 120 s of work each, about 20 are at work at once.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import statistics
import subprocess
import sys
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from hub_server import make_hub  # noqa: E402 - imported after the sys.path set-up above


def rss_mib(username: str) -> float:
    out = subprocess.run(["ps", "-u", username, "-o", "rss="], capture_output=True, text=True).stdout.split()
    return sum(int(x) for x in out) / 1024


async def run_cell(url: str, username: str, token: str, kernel_id: str, code: str) -> str:
    from tornado.httpclient import HTTPRequest
    from tornado.websocket import websocket_connect

    ws_url = url.replace("http", "ws", 1) + f"/user/{username}/api/kernels/{kernel_id}/channels"
    connection = await websocket_connect(HTTPRequest(ws_url, headers={"Authorization": f"token {token}"}))
    msg_id = uuid.uuid4().hex
    await connection.write_message(json.dumps({
        "header": {"msg_id": msg_id, "msg_type": "execute_request", "username": username, "session": msg_id,
                   "version": "5.3"},
        "parent_header": {}, "metadata": {}, "channel": "shell",
        "content": {"code": code, "silent": False, "store_history": False, "user_expressions": {},
                    "allow_stdin": False}}))
    while True:
        message = json.loads(await connection.read_message())
        if message.get("parent_header", {}).get("msg_id") == msg_id and message["msg_type"] == "execute_result":
            connection.close()
            return message["content"]["data"]["text/plain"]


def one_cell(hub, name: str) -> float:
    token = hub.user_token(name)
    began = time.monotonic()
    kernel = hub.server_api(name, token, "POST", "kernels", json={"name": "python3"}).json()
    result = asyncio.run(run_cell(hub.url, hub.users[name], token, kernel["id"], "sum(range(10**6))"))
    assert result == str(sum(range(10**6))), result
    return time.monotonic() - began


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=20)
    parser.add_argument("--timeout", type=float, default=600, help="seconds for all servers to be ready")
    parser.add_argument("--concurrent", action="store_true", help="send all start requests at once")
    parser.add_argument("--arrivals", type=int, help="a class over time: this many students (benchmarks/hub_class.py)")
    parser.add_argument("--window", type=float, default=600, help="with --arrivals: seconds over which they arrive")
    parser.add_argument("--active", type=int, default=20, help="with --arrivals: at most this many at work at once")
    parser.add_argument("--work", type=float, default=0, help="with --arrivals: seconds each works (0: the lesson once)")
    parser.add_argument("--pause", type=float, default=0, help="with --arrivals: seconds a student reads between cells")
    args = parser.parse_args()
    if args.arrivals:
        from hub_class import class_over_time

        return class_over_time(args.arrivals, args.window, args.active, args.work, args.pause)
    course = Path("/tmp") / f"bench-hub-course-{uuid.uuid4().hex[:6]}"
    course.mkdir()
    shutil.copy(ROOT / "nbgrader_config.py", course)
    names = [f"s{i:03d}" for i in range(args.students)]
    hub = make_hub(names, course)
    load_before = open("/proc/loadavg").read().split()[0]
    try:
        hub.start()
        with ThreadPoolExecutor(8) as pool:
            list(pool.map(hub.login, names))
        began = time.monotonic()
        start = lambda name: hub.api("POST", f"users/{hub.users[name]}/server")
        if args.concurrent:
            burst = ThreadPoolExecutor(len(names))     # every request in flight at once; the poll below
            for name in names:                          # sees each server become ready on its own
                burst.submit(start, name)
        else:
            for name in names:
                start(name)
        ready: dict[str, float] = {}
        while len(ready) < len(names) and time.monotonic() - began < args.timeout:
            for user in hub.api("GET", "users").json():
                short = user["name"].split("-", 1)[-1]
                if short in names and short not in ready and (user.get("servers") or {}).get("", {}).get("ready"):
                    ready[short] = time.monotonic() - began
            time.sleep(0.5)
        cells = {}
        with ThreadPoolExecutor(4) as pool:
            for name, seconds in zip(sorted(ready), pool.map(lambda n: one_cell(hub, n), sorted(ready))):
                cells[name] = seconds
        memory = [rss_mib(hub.users[n]) for n in sorted(ready)]
        available = int(next(l for l in open("/proc/meminfo") if l.startswith("MemAvailable")).split()[1]) / 2**20
        times = sorted(ready.values())
        if args.concurrent:
            burst.shutdown(wait=True)
        load = open("/proc/loadavg").read().split()[0]
        print(f"starts: {'concurrent' if args.concurrent else 'one after another'}; load average before: {load_before}; "
              f"after: {load}")
        print("| students | ready | median ready s | worst ready s | median cell s | worst cell s "
              "| RSS per student MiB (median) | RSS all MiB | MemAvailable after GiB |")
        print("|---|---|---|---|---|---|---|---|---|")
        print(f"| {len(names)} | {len(ready)} | {statistics.median(times):.1f} | {times[-1]:.1f} "
              f"| {statistics.median(cells.values()):.2f} | {max(cells.values()):.2f} "
              f"| {statistics.median(memory):.0f} | {sum(memory):.0f} | {available:.1f} |")
        return 0 if len(ready) == len(names) else 1
    finally:
        hub.cleanup()
        shutil.rmtree(course, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
