"""`course site` on the command line. Kept apart from build.py so that registering the command costs
nothing: the build's imports (nbclient, nbformat, the quiz banks) load only when a site is built, not
on every `course` command (`course check` among them)."""
from __future__ import annotations

import sys
from pathlib import Path


def main(args) -> int:
    from coursekit.app.site.build import build_site

    try:
        html = build_site(out=Path(args.out) if args.out else None,
                          leaderboard=Path(args.leaderboard) if args.leaderboard else None)
    except Exception as exc:  # noqa: BLE001 - a failing notebook or a broken bank: say which, no traceback wall
        print(f"course site: {exc}", file=sys.stderr)
        return 1
    print(f"Site built: open {html / 'index.html'}")
    return 0


def register(sub) -> None:
    p = sub.add_parser("site", help="build the course as a static website in build/site/html")
    p.add_argument("--out", help="build folder (default: build/site)")
    p.add_argument("--leaderboard", metavar="DIR",
                   help="add the class leaderboards `autograder leaderboard LAB` wrote (DIR/LAB.json) as pages")
    p.set_defaults(handler=main)
