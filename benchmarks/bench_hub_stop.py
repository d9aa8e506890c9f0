"""How long `course hub stop` takes, with the hub's services and proxy bound to it (coursekit/app/hub/bound.py)
and, in the same run, started plainly as JupyterHub does (the code before issue 54).

    sudo .venv/bin/python benchmarks/bench_hub_stop.py [--students 2] [--rounds 2]

Each round starts the class (`course hub`, temporary accounts from tests/hub_server.py) with SIGINT
ignored, as a hub started in the background (`course hub ... &`, nohup, some init systems) has it, starts
every person's server, then times `course hub stop`: the servers, then the hub with its services and
proxy. The plain variant runs the same hub on the same data folder from a JupyterHub config that strips
bound.py from the commands. Prints one row per variant (median over rounds) and the ratio.
"""
from __future__ import annotations

import argparse
import os
import shutil
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from hub_server import class_course, make_hub  # noqa: E402 - imported after the sys.path set-up above

PLAIN_CONFIG = '''import os
from coursekit.app.hub.config import configure
c = get_config()  # noqa: F821 - get_config is injected by jupyterhub
configure(c, os.environ["COURSE_HUB_DATA"])
unbind = lambda command: command[3:] if command[1:3] == ["-m", "coursekit.app.hub.bound"] else command
for service in c.JupyterHub.services:
    if "command" in service:
        service["command"] = unbind(service["command"])
c.ConfigurableHTTPProxy.command = unbind(c.ConfigurableHTTPProxy.command)
'''


def ignoring_sigint():
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def one_round(hub, plain: bool) -> float:
    """Seconds `course hub stop` takes to end the class: every server, then the hub, services, proxy."""
    command = hub.command
    env = dict(hub.env)
    if plain:      # the data folder is prepared: run JupyterHub on it directly, as `course hub` would exec it
        config = hub.data.parent / "plain_jupyterhub_config.py"
        config.write_text(PLAIN_CONFIG)
        command = [str(Path(sys.executable).parent / "jupyterhub"), "-f", str(config)]
        env["COURSE_HUB_DATA"] = str(hub.data)
    with open(hub.data.parent / "hub.log", "a") as log:
        hub.process = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT,
                                       start_new_session=True, preexec_fn=ignoring_sigint)
    from waiting import wait_for

    wait_for(hub._up, 600, "the hub")
    for name in hub.users:
        hub.start_server(name)
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "coursekit.app.cli", "hub", "stop", "--data", str(hub.data)],
                          capture_output=True, text=True, timeout=600)
    total = time.monotonic() - started
    if done.returncode != 0 or "killed" in done.stdout:
        raise RuntimeError(f"course hub stop: {done.stdout}\n{done.stderr}")
    hub.process.wait(timeout=60)
    return total


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    if os.geteuid() != 0:
        sys.exit("run as root: the class's accounts are made for the run")
    import tempfile

    course = class_course(Path(tempfile.mkdtemp(prefix="stop-course-")))
    hub = make_hub([f"s{i}" for i in range(args.students)], course)
    times: dict[str, list[float]] = {"bound (now)": [], "plain (before)": []}
    try:
        for _ in range(args.rounds):
            for variant in times:
                times[variant].append(one_round(hub, plain=variant.startswith("plain")))
                print(f"  {variant}: {times[variant][-1]:.1f} s", file=sys.stderr, flush=True)
    finally:
        hub.cleanup()
        shutil.rmtree(course.parent, ignore_errors=True)
    now, before = statistics.median(times["bound (now)"]), statistics.median(times["plain (before)"])
    print(f"`course hub stop`, {args.students} student(s) and an instructor, each with a server; hub started "
          f"with SIGINT ignored; median of {args.rounds} round(s)")
    print("| services and proxy | stop (s) | rounds (s) |\n|---|---:|---|")
    for variant, values in times.items():
        print(f"| {variant} | {statistics.median(values):.1f} | {', '.join(f'{v:.1f}' for v in values)} |")
    print(f"plain / bound: {before / now:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
