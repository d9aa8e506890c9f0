"""A launch from an assignment Deep Linking made (its resource link carries the custom parameter `lab`,
deeplink.py): the person lands in that lab, graded quiz or module test, not only in their JupyterLab.

- A student gets their copy through nbgrader's exchange, fetched for them as `nbgrader fetch_assignment
  LAB` typed in their own terminal would: run as their Unix user, with their server's environment, into
  ~/LAB. A copy they already have is kept as it is (it holds their work) and opened again.
- An instructor or TA lands in the assignment's source in their course folder (~/course/solutions/LAB).
- An assignment not yet released to the class: a page saying so (the person is logged in all the same).
"""
from __future__ import annotations

import asyncio
import pwd
import re
from pathlib import Path
from urllib.parse import quote

from tornado.httputil import url_concat
from tornado.web import HTTPError

from coursekit.app.lti.claims import CUSTOM

ASSIGNMENT_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$")
FETCH_TIMEOUT_S = 300


class AssignmentError(HTTPError):
    def __init__(self, status: int, text: str):
        super().__init__(status, "%s", text)


def linked_assignment(token: dict) -> str | None:
    """The assignment a launch came from (the resource link's custom `lab`), or None for a course link."""
    lab = (token.get(CUSTOM) or {}).get("lab")
    if lab is None:
        return None
    if not isinstance(lab, str) or not ASSIGNMENT_ID.match(lab) or ".." in lab:
        raise AssignmentError(400, f"This assignment link names {lab!r}, which is no assignment id of the course. "
                                   "Ask the instructor to add the assignment again from the LMS's dialog.")
    return lab


def outbound(layout, lab: str) -> Path:
    from coursekit.app.hub.classroom import COURSE_ID

    return layout.exchange / COURSE_ID / "outbound" / lab


async def fetch(layout, username: str, lab: str, environment: dict) -> Path:
    """~/LAB: the student's copy, fetched as them through the exchange the first time, kept afterwards.
    `environment`: what their server gets (config.server_environment: the exchange's nbgrader config)."""
    home = Path(pwd.getpwnam(username).pw_dir)
    if (home / lab).exists():
        return home / lab
    env = {**environment, "HOME": str(home), "USER": username, "LOGNAME": username}
    nbgrader = Path(layout.read_settings().python).parent / "nbgrader"
    process = await asyncio.create_subprocess_exec(
        "runuser", "-u", username, "--", "env", "-i", *[f"{k}={v}" for k, v in env.items()],
        str(nbgrader), "fetch_assignment", lab, cwd=str(home),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
    try:
        output, _ = await asyncio.wait_for(process.communicate(), FETCH_TIMEOUT_S)
    except asyncio.TimeoutError:
        process.kill()
        raise AssignmentError(503, f"Fetching {lab} for you took over {FETCH_TIMEOUT_S} s. Open the assignment "
                                   "again from the LMS, or fetch it in JupyterLab's Assignments panel.") from None
    if process.returncode != 0 or not (home / lab).is_dir():
        tail = output.decode(errors="replace").strip().splitlines()[-3:]
        raise AssignmentError(500, f"`nbgrader fetch_assignment {lab}` for {username} exited {process.returncode} "
                                   f"({' / '.join(tail)}). Fetch it in JupyterLab's Assignments panel, and tell the "
                                   "course's instructor.")
    return home / lab


async def landing(authenticator, user, role: str, lab: str, base_url: str) -> str:
    """Where the launch goes: the hub's spawn page, then (next=) the assignment in the person's JupyterLab."""
    from coursekit.app.hub.classroom import INSTRUCTOR_COURSE, Layout

    layout = Layout(authenticator.data)
    if role in ("instructor", "ta"):
        source = Path(pwd.getpwnam(user.name).pw_dir) / INSTRUCTOR_COURSE / "solutions" / lab
        path = f"solutions/{lab}" if source.is_dir() else ""
    else:
        released = outbound(layout, lab)
        notebooks = sorted(p.name for p in released.glob("*.ipynb")) if released.is_dir() else []
        if not notebooks:
            raise AssignmentError(404, f"{lab} has not been released to the class yet: it opens here once the "
                                       f"instructor releases it. You are logged in; your JupyterLab is at {user.url}")
        await fetch(layout, user.name, lab, authenticator.student_environment(user.name))
        path = f"{lab}/{notebooks[0]}"
    return url_concat(f"{base_url}spawn", {"next": f"{user.url}lab/tree/{quote(path)}"})
