"""The class's leaderboards as a JupyterHub service: /services/leaderboard/ lists them, .../LAB shows one.

`autograder leaderboard LAB --publish`, run by an instructor, writes LAB.html and LAB.json into
<exchange>/<course id>/leaderboard/ (autograder/leaderboard/publish.py). Anyone logged in to the hub
may read them here (the hub's OAuth; the menu's Services list links it). The exchange root is
world-writable, so a page is served only when it, its folder and the course's folder belong to an
instructor (or root), are no links and are writable by no one else: a page or folder a student planted
there is not shown. The page is the grader's static HTML, sent with the Content-Security-Policy it
carries (no script runs, nothing loads from elsewhere).

    python -m coursekit.app.hub.leaderboard DATA_FOLDER
"""
from __future__ import annotations

import os
import pwd
import re
import stat
import sys
from pathlib import Path

from coursekit.app.hub.classroom import COURSE_ID, Layout, service_port

NAME = "leaderboard"
PORT_FILE = "leaderboard-service-port"
LAB_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$")
PAGE_CSP = ("default-src 'none'; style-src 'unsafe-inline'; img-src 'none'; form-action 'none'; "
            "base-uri 'none'; frame-ancestors 'none'")


def hub_service(data: Path, python: str) -> dict:
    """The JupyterHub service entry: a managed process on a loopback port, routed at /services/leaderboard/."""
    return {"name": NAME, "url": f"http://127.0.0.1:{service_port(data, PORT_FILE)}", "display": True,
            "oauth_no_confirm": True, "command": [python, "-m", "coursekit.app.hub.leaderboard", str(data)]}


def user_role() -> dict:
    """JupyterHub's default user role, plus opening this service (by default a user may open none)."""
    return {"name": "user", "scopes": ["self", f"access:services!service={NAME}"]}


def instructors(layout: Layout) -> set[str]:
    """Who may publish: the roster's instructors and the people the LMS launched as instructor or TA."""
    from coursekit.app.hub.lti.auth import read_people
    from coursekit.app.hub.roster import load_roster

    settings = layout.read_settings()
    names = set(load_roster(settings.roster).instructors) if settings.roster else set()
    if settings.lti_config:
        names |= {n for n, p in read_people(layout.data).items() if p.get("role") in ("instructor", "ta")}
    return names


def trusted(path: Path, teaching: set[str]) -> bool:
    """`path` is root's or an instructor's, not a link, and writable by no group or other."""
    try:
        info = os.lstat(path)
        owner = "root" if info.st_uid == 0 else pwd.getpwuid(info.st_uid).pw_name
    except (OSError, KeyError):
        return False
    if stat.S_ISLNK(info.st_mode) or info.st_mode & 0o022:
        return False
    return owner == "root" or owner in teaching


def published(folder: Path, teaching: set[str]) -> list[str]:
    """The labs whose page may be shown, in name order."""
    if not (trusted(folder.parent, teaching) and trusted(folder, teaching)):
        return []
    try:
        names = sorted(p.name[:-5] for p in folder.iterdir() if p.name.endswith(".html"))
    except OSError:
        return []
    return [n for n in names if LAB_NAME.match(n) and trusted(folder / f"{n}.html", teaching)]


def index_page(boards: list[str], prefix: str, hub_home: str = "/hub/home") -> str:
    from html import escape

    items = "".join(f'<li><a href="{escape(prefix)}{escape(b)}">{escape(b)}</a></li>\n' for b in boards)
    body = (f"<p>Labs your instructor has published a leaderboard for. Engines are ranked by the grader's own "
            f"measurements; only learners who opted in are named.</p>\n<ul>\n{items}</ul>\n" if boards else
            "<p>No leaderboard has been published yet. An instructor publishes one with "
            "<code>autograder leaderboard LAB --publish</code>.</p>\n")
    return ('<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n<title>Leaderboards</title>\n'
            "<style>body { font-family: system-ui, sans-serif; margin: 1.5rem; color: #1a1a1a; background: #fff; }"
            " a { color: #0b57a4; }</style>\n</head>\n<body>\n<main>\n<h1>Leaderboards</h1>\n"
            f'{body}<p><a href="{escape(hub_home)}">Back to the hub</a></p>\n</main>\n</body>\n</html>\n')


def make_app(data: Path, prefix: str):
    from jupyterhub.services.auth import HubOAuthCallbackHandler, HubOAuthenticated
    from tornado import web

    layout = Layout(data)
    folder = layout.exchange / COURSE_ID / "leaderboard"
    hub_home = os.environ.get("JUPYTERHUB_BASE_URL", "/").rstrip("/") + "/hub/home"

    class Board(HubOAuthenticated, web.RequestHandler):
        @web.authenticated
        def get(self, lab: str = ""):
            boards = published(folder, instructors(layout))
            self.set_header("Content-Security-Policy", PAGE_CSP)
            self.set_header("X-Content-Type-Options", "nosniff")
            self.set_header("Content-Type", "text/html; charset=utf-8")
            if not lab:
                return self.finish(index_page(boards, prefix, hub_home))
            if lab not in boards:
                raise web.HTTPError(404, f"no leaderboard has been published for {lab}")
            self.finish((folder / f"{lab}.html").read_bytes())

    return web.Application([(f"{prefix}oauth_callback", HubOAuthCallbackHandler), (f"{prefix}?", Board),
                            (f"{prefix}([^/]+)", Board)], cookie_secret=os.urandom(32))


def main(argv: list[str] | None = None) -> int:
    from coursekit.app.hub.services import serve_until_stopped

    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m coursekit.app.hub.leaderboard DATA_FOLDER", file=sys.stderr)
        return 2
    serve_until_stopped(make_app(Path(args[0]), os.environ["JUPYTERHUB_SERVICE_PREFIX"]))   # /services/leaderboard/
    return 0


if __name__ == "__main__":
    sys.exit(main())
