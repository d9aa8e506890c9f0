"""A class over time on one `course hub` (benchmarks/bench_hub.py --arrivals): students arrive evenly over a
window, at most `active` at work at once; each logs in through the proxy's login form, starts a server
(REST API), opens a lesson and runs its code cells over the kernel websocket, closes it and leaves.

A monitor samples the machine every 2 s: memory available, CPU busy, the hub's and the proxy's open file
descriptors, TCP sockets on loopback, and spawns in flight. The last table says how close each came to its
limit at the worst moment: the highest is what this machine runs out of first.
"""
from __future__ import annotations

import asyncio
import os
import shutil
import statistics
import subprocess
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from hub_server import make_hub
from lesson_client import LESSON, close_session, code_cells, open_session, process_memory, run_cells

ROOT = Path(__file__).resolve().parent.parent
SPAWN_LIMIT = 100           # JupyterHub's concurrent_spawn_limit (its default; course hub keeps it)
MEMORY_FLOOR_GIB = 3.0      # stop admitting students below this much available: the machine is shared


def meminfo(key: str) -> float:
    return int(next(l for l in open("/proc/meminfo") if l.startswith(key + ":")).split()[1]) / 2**20


def cpu_times() -> tuple[int, int]:
    values = [int(x) for x in open("/proc/stat").readline().split()[1:]]
    return values[3] + values[4], sum(values)       # idle + iowait, all


def user_pss(username: str) -> float:
    total = 0.0
    for pid in subprocess.run(["ps", "-u", username, "-o", "pid="], capture_output=True, text=True).stdout.split():
        try:
            total += process_memory(int(pid))[1]
        except (FileNotFoundError, ProcessLookupError, KeyError):
            pass
    return total


def fd_limit(pid: int) -> int:
    line = next(l for l in Path(f"/proc/{pid}/limits").read_text().splitlines() if l.startswith("Max open files"))
    return int(line.split()[3])


def fds(pid: int) -> int:
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return 0


class Monitor(threading.Thread):
    def __init__(self, hub):
        super().__init__(daemon=True)
        self.hub, self.stop, self.spawning, self.working = hub, threading.Event(), 0, 0
        self.lock = threading.Lock()
        self.samples: list[dict] = []
        self.limits: dict[str, int] = {}
        self.available_before = meminfo("MemAvailable")

    def pids(self) -> dict[str, int]:
        found = {}
        for name in ("jupyterhub.pid", "proxy.pid"):
            try:
                found[name.split(".")[0]] = int((self.hub.data / name).read_text().strip())
            except (OSError, ValueError):
                pass
        return found

    def run(self) -> None:
        idle, total = cpu_times()
        while not self.stop.wait(2):
            idle2, total2 = cpu_times()
            busy = 1 - (idle2 - idle) / max(1, total2 - total)
            idle, total = idle2, total2
            sockets = sum(len(open(f).readlines()) - 1 for f in ("/proc/net/tcp", "/proc/net/tcp6"))
            with self.lock:
                spawning, working = self.spawning, self.working
            pids = self.pids()
            if pids and not self.limits:
                self.limits = {k: fd_limit(v) for k, v in pids.items()}
            self.samples.append({"t": time.monotonic(), "available": meminfo("MemAvailable"), "busy": busy,
                                 "load": float(open("/proc/loadavg").read().split()[0]), "sockets": sockets,
                                 "spawning": spawning, "working": working, **{f"fd_{k}": fds(v) for k, v in pids.items()}})


def class_over_time(arrivals: int, window: float, active: int, work: float = 0, pause: float = 0) -> int:
    """`work`: seconds each student keeps working once their server is ready (the lesson again from the top
    until then; 0: once through), `pause` seconds between cells."""
    course = Path("/tmp") / f"bench-hub-course-{uuid.uuid4().hex[:6]}"
    course.mkdir()
    shutil.copy(ROOT / "nbgrader_config.py", course)
    names = [f"s{i:03d}" for i in range(arrivals)]
    cells = code_cells(ROOT / "course" / LESSON)
    hub = make_hub(names, course)
    places = threading.Semaphore(active)
    results: dict[str, dict] = {}
    monitor = Monitor(hub)
    stopped_for_memory = threading.Event()
    load_before = open("/proc/loadavg").read().split()[0]

    def student(name: str) -> None:
        record = results[name] = {}
        waited = time.monotonic()
        with places:
            record["wait"] = time.monotonic() - waited
            if meminfo("MemAvailable") < MEMORY_FLOOR_GIB:
                stopped_for_memory.set()
                record["error"] = "not admitted: memory"
                return
            try:
                hub.login(name)
                token = hub.user_token(name)
                began = time.monotonic()
                with monitor.lock:
                    monitor.spawning += 1
                try:
                    answer = hub.api("POST", f"users/{hub.users[name]}/server")
                    record["start_status"] = answer.status_code
                    while not (hub.server(name) or {}).get("ready"):
                        if time.monotonic() - began > 300:
                            raise TimeoutError("server not ready in 300 s")
                        time.sleep(2)
                finally:
                    with monitor.lock:
                        monitor.spawning -= 1
                record["ready"] = time.monotonic() - began
                base = f"{hub.url}/user/{hub.users[name]}"
                session, kernel = open_session(base, token, f"lessons/{LESSON}")
                record["cells"], record["lessons"] = [], []
                with monitor.lock:
                    monitor.working += 1
                try:
                    working = time.monotonic()
                    while not record["lessons"] or time.monotonic() - working < work:
                        record["cells"] += asyncio.run(run_cells(base, token, kernel, cells, pause=pause))
                        record["lessons"].append(sum(record["cells"][-len(cells):]))
                finally:
                    with monitor.lock:
                        monitor.working -= 1
                record["active_pss"] = user_pss(hub.users[name])     # server + kernel, lesson done
                close_session(base, token, session)
            except Exception as error:   # noqa: BLE001  (a failed student is counted and reported, not fatal)
                record["error"] = f"{type(error).__name__}: {str(error)[:200]}"

    try:
        hub.start()
        monitor.start()
        began = time.monotonic()
        with ThreadPoolExecutor(arrivals) as pool:
            for i, name in enumerate(names):
                delay = began + i * window / arrivals - time.monotonic()
                if delay > 0:
                    time.sleep(delay)
                pool.submit(student, name)
        elapsed = time.monotonic() - began
        idle_pss = [user_pss(hub.users[n]) for n in names if "ready" in results[n]]
        monitor.stop.set()
        report(arrivals, window, active, work, pause, results, idle_pss, monitor, elapsed, load_before)
        if any("error" in r for r in results.values()):     # the servers' and kernels' logs go to the hub's
            kept = Path("/tmp") / f"bench-hub-{uuid.uuid4().hex[:6]}.log"
            shutil.copy(hub.log, kept)
            print(f"the hub's log (servers and kernels too): {kept}")
            return 1
        return 0
    finally:
        hub.cleanup()
        shutil.rmtree(course, ignore_errors=True)


def percentile(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


def report(arrivals, window, active, work, pause, results, idle_pss, monitor, elapsed, load_before) -> None:
    done = [r for r in results.values() if "active_pss" in r]     # worked to the end
    ready = [r["ready"] for r in results.values() if "ready" in r]
    cells = [c for r in done for c in r["cells"]]
    lessons = [s for r in done for s in r["lessons"]]
    samples = monitor.samples
    total_gib = meminfo("MemTotal")
    errors = {}
    for r in results.values():
        if "error" in r:
            errors[r["error"]] = errors.get(r["error"], 0) + 1
    print(f"load: {arrivals} students arriving evenly over {window:.0f} s, at most {active} at work at once; "
          f"each works {work:.0f} s once ready (the lesson from the top again until then, at least once), "
          f"{pause:.0f} s between cells; lesson {LESSON} ({len(code_cells(ROOT / 'course' / LESSON))} code cells); "
          f"most at work at once {max(s['working'] for s in samples)}, {len(lessons)} lessons run in all; "
          f"whole run {elapsed:.0f} s; load average before {load_before}, highest {max(s['load'] for s in samples):.1f}")
    print("| students | lessons done | median ready s | worst ready s | median cell s | p95 cell s | median lesson s "
          "| worst wait for a place s | PSS per student MiB: at work (server + kernel) / idle server "
          "| least MemAvailable GiB |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    print(f"| {arrivals} | {len(done)} | {statistics.median(ready):.1f} | {max(ready):.1f} "
          f"| {statistics.median(cells):.2f} | {percentile(cells, 0.95):.2f} | {statistics.median(lessons):.1f} "
          f"| {max(r.get('wait', 0) for r in results.values()):.1f} "
          f"| {statistics.median(r['active_pss'] for r in done):.0f} / {statistics.median(idle_pss):.0f} "
          f"| {min(s['available'] for s in samples):.1f} (of {monitor.available_before:.1f} before) |")
    print(f"most fds: proxy {max(s.get('fd_proxy', 0) for s in samples)}, hub {max(s.get('fd_jupyterhub', 0) for s in samples)}; "
          f"most TCP sockets {max(s['sockets'] for s in samples)}; most spawns in flight {max(s['spawning'] for s in samples)}")
    if errors:
        print("failures: " + "; ".join(f"{n} x {e}" for e, n in errors.items()))
    port_low, port_high = (int(x) for x in open("/proc/sys/net/ipv4/ip_local_port_range").read().split())
    limits = monitor.limits
    worst = {
        "memory (1 - least MemAvailable / MemTotal)": 1 - min(s["available"] for s in samples) / total_gib,
        "memory the class took (MemAvailable before - least) / MemTotal":
            (monitor.available_before - min(s["available"] for s in samples)) / total_gib,
        "CPU (busy share, mean over the run)": statistics.mean(s["busy"] for s in samples),
        "CPU (busy share, worst 2 s)": max(s["busy"] for s in samples),
        f"file descriptors (proxy's most / its limit {limits['proxy']})":
            max(s.get("fd_proxy", 0) for s in samples) / limits["proxy"],
        f"file descriptors (hub's most / its limit {limits['jupyterhub']})":
            max(s.get("fd_jupyterhub", 0) for s in samples) / limits["jupyterhub"],
        f"ports (TCP sockets / {port_high - port_low + 1} ephemeral)":
            max(s["sockets"] for s in samples) / (port_high - port_low + 1),
        f"spawns in flight (most / concurrent_spawn_limit {SPAWN_LIMIT})":
            max(s["spawning"] for s in samples) / SPAWN_LIMIT,
    }
    print("| resource | worst use of its limit |")
    print("|---|---|")
    for name, share in sorted(worst.items(), key=lambda item: -item[1]):
        print(f"| {name} | {100 * share:.0f}% |")
