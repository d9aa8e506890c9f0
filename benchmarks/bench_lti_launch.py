"""Launch-to-ready: N students click the course in the emulated LMS at once and arrive in their own server.

    sudo .venv/bin/python benchmarks/bench_lti_launch.py [--students 50] [--timeout 900]

A real `course hub --lti-config` (tests/hub_server.py, temporary cth<hex>-* accounts removed at the end)
and the emulated LMS (tests/lms_emulator.py) on loopback. Each student, in a thread of their own, all
starting together: the LMS's course link (login initiation at the hub), the LMS's OIDC auth endpoint, the
id_token posted back, then /hub/spawn until their JupyterLab answers through the proxy. Every one is a
newcomer, so the time includes making their Unix account and home. Prints the time to the launch being
accepted (logged in) and to a ready server: median and worst.
"""
from __future__ import annotations

import argparse
import html
import json
import re
import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from hub_server import make_hub  # noqa: E402 - imported after the sys.path set-up above
from lms_emulator import EmulatedLMS  # noqa: E402 - imported after the sys.path set-up above


def arrive(hub, lms, name: str, user_id: str, timeout: float) -> tuple[float, float]:
    start = time.perf_counter()
    session = requests.Session()
    first = session.post(f"{hub.url}/hub/lti13/oauth_login", timeout=timeout, allow_redirects=False, data={
        "iss": lms.issuer, "login_hint": user_id, "target_link_uri": f"{hub.url}/hub/spawn",
        "client_id": lms.client_id, "lti_deployment_id": lms.deployment_id})
    page = session.get(first.headers["Location"], timeout=timeout)
    form = {k: html.unescape(v) for k, v in re.findall(r'name="(\w+)" value="([^"]*)"', page.text)}
    done = session.post(f"{hub.url}/hub/lti13/oauth_callback", data=form, timeout=timeout, allow_redirects=False)
    if done.status_code != 302:
        raise RuntimeError(f"{name}: launch refused ({done.status_code}): {done.text[:300]}")
    logged_in = time.perf_counter() - start
    session.get(f"{hub.url}/hub/spawn", timeout=timeout)
    deadline = start + timeout
    lab_url = f"{hub.url}/user/{hub.users[name]}/lab"
    while time.perf_counter() < deadline:     # ready: their JupyterLab page comes through the proxy
        lab = session.get(lab_url, timeout=timeout)       # (the server's own OAuth with the hub included)
        if lab.status_code == 200 and lab.url.split("?")[0] == lab_url and "jupyter-config-data" in lab.text:
            return logged_in, time.perf_counter() - start
        time.sleep(0.5)
    raise TimeoutError(f"{name}: no server after {timeout:.0f} s")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--students", type=int, default=50)
    parser.add_argument("--timeout", type=float, default=900)
    args = parser.parse_args()
    lms = EmulatedLMS().start()
    course = Path(tempfile.mkdtemp(prefix="bench-lti-course-"))
    hub = make_hub([], course, options=("--cull-timeout", "0"))
    prefix = hub.users["prof"].removesuffix("prof")
    names = [f"s{i:03d}" for i in range(args.students)]
    hub.users.update({n: prefix + n for n in names})
    settings = course / "platform.json"
    settings.write_text(json.dumps(lms.platform_settings(context_id=lms.context_id, memberships_url="")))
    hub.command += ["--lti-config", str(settings)]
    for n in names:
        lms.enrol(hub.users[n], user_id=f"u-{n}")
    try:
        hub.start(timeout=600)
        with ThreadPoolExecutor(max_workers=args.students) as pool:
            results = list(pool.map(lambda n: arrive(hub, lms, n, f"u-{n}", args.timeout), names))
    finally:
        hub.cleanup()
        lms.stop()
    logged, ready = [r[0] for r in results], [r[1] for r in results]
    print(f"| {args.students} students launching at once | median s | worst s |")
    print("|---|---|---|")
    print(f"| launch accepted (logged in, account made) | {statistics.median(logged):.1f} | {max(logged):.1f} |")
    print(f"| own JupyterLab ready through the proxy | {statistics.median(ready):.1f} | {max(ready):.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
