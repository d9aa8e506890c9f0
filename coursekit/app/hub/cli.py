"""`course hub`: prepare the class's data folder from a roster, then run JupyterHub on it."""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from coursekit.app.hub.classroom import CULL_TIMEOUT
from coursekit.paths import course_root

DEFAULT_DATA = "/srv/llm-course-hub"


def hub(args: argparse.Namespace) -> int:
    from coursekit.app.hub.accounts import AccountError
    from coursekit.app.hub.classroom import Layout, Settings, prepare
    from coursekit.app.hub.proxy import ensure_proxy
    from coursekit.app.hub.roster import Roster, RosterError, load_roster
    from coursekit.app.precompile import precompile

    if args.action == "stop":
        from coursekit.app.hub.stop import StopError, stop

        try:
            return stop(args.data)
        except StopError as error:
            print(f"course hub stop: {error}", file=sys.stderr)
            return 1
    if args.action == "remove-accounts":
        from coursekit.app.hub.end_of_term import EndOfTermError, remove_accounts

        try:
            return remove_accounts(args.data)
        except EndOfTermError as error:
            print(f"course hub remove-accounts: {error}", file=sys.stderr)
            return 1
    if args.action == "lti-tool-config":
        from coursekit.app.hub.lti.toolconfig import (
            PublicUrlError,
            public_origin,
            setup_text,
        )

        try:
            print(setup_text(public_origin(args.public_url or "")))
        except PublicUrlError as error:
            print(f"course hub lti-tool-config: {error}", file=sys.stderr)
            return 1
        return 0
    if args.lti_sync_every < 1:
        print(f"course hub: --lti-sync-every {args.lti_sync_every}: give a number of seconds, at least 1", file=sys.stderr)
        return 1
    if not args.roster and not args.lti_config:
        print("course hub: give --roster CSV, --lti-config FILE, or both to start a class "
              "(`course hub stop` stops one)", file=sys.stderr)
        return 1
    try:
        roster = load_roster(args.roster) if args.roster else Roster(())
        if args.lti_config:
            from coursekit.app.lti.platform import load_platform

            if not load_platform(args.lti_config).context_id:
                print(f"course hub: {args.lti_config} has no context_id yet: every launch is refused with a page "
                      "naming its course's context_id; add it and restart (docs/LMS.md, section 2)", flush=True)
        public_url = ""
        if args.public_url:
            from coursekit.app.hub.lti.toolconfig import public_origin

            public_url = public_origin(args.public_url)
        layout = Layout(args.data)
        settings = Settings(roster=str(Path(args.roster).resolve()) if args.roster else "",
                            lti_config=str(Path(args.lti_config).resolve()) if args.lti_config else "",
                            course_source=str(Path(args.course or course_root()).resolve()),
                            ip=args.ip, port=args.port, hub_port=args.hub_port, proxy_api_port=args.proxy_api_port,
                            python=sys.executable, cull_timeout=args.cull_timeout, lti_sync_every=args.lti_sync_every,
                            public_url=public_url)
        ensure_proxy()
        # done at set-up (./course.sh hub); here only after a new install, said when it is (minutes)
        precompile(announce=True)
        opened = prepare(layout, roster, settings)
    except (RosterError, AccountError, RuntimeError, ValueError) as error:
        print(f"course hub: {error}", file=sys.stderr)
        return 1
    for folder in opened:
        print(f"course hub: made {folder} traversable (o+x) so the class accounts can run this Python")
    print(f"course hub: {len(roster.students)} student(s), {len(roster.instructors)} instructor(s); data in "
          f"{layout.data}; serving http://{args.ip}:{args.port}/ (`course hub stop --data {layout.data}` "
          "ends the class: servers, hub, proxy; Ctrl+C stops the hub alone)"
          + (f"; the LMS is given {public_url}/" if public_url else ""), flush=True)
    config = Path(__file__).with_name("jupyterhub_config.py")
    os.environ["COURSE_HUB_DATA"] = str(layout.data)
    hub_exe = str(Path(sys.executable).parent / "jupyterhub")
    os.execv(hub_exe, [hub_exe, "-f", str(config)])
    return 0  # not reached


def register(sub) -> None:
    p = sub.add_parser("hub", help="run the course for a class: JupyterHub, one Unix account per roster line; "
                       "`course hub stop` ends it")
    p.add_argument("action", nargs="?", choices=["stop", "remove-accounts", "lti-tool-config"],
                   help="stop: stop every server, the hub, its services and proxy (files and grades kept); "
                        "remove-accounts: at the end of term, after stop, remove the class's Unix accounts "
                        "(homes, exchange and grades kept in --data); "
                        "lti-tool-config: print what the LMS admin registers, for --public-url (docs/LMS.md)")
    p.add_argument("--roster", help="CSV with columns username,role[,name] (role: instructor|student); "
                   "to start, this, --lti-config or both")
    p.add_argument("--lti-config", metavar="FILE", help="the LMS's LTI 1.3 settings: launches from the LMS (docs/LMS.md)")
    p.add_argument("--lti-sync-every", type=int, default=3600, metavar="SECONDS",
                   help="with --lti-config and its memberships_url: sync the roster from the LMS this often (default 3600)")
    p.add_argument("--public-url", metavar="URL", help="the hub's address for the LMS and browsers, behind a TLS "
                   "proxy (https://hub.example.edu); every URL given to the LMS is made from it (docs/LMS.md)")
    p.add_argument("--data", default=DEFAULT_DATA, help=f"folder that keeps homes, exchange, hub database (default {DEFAULT_DATA})")
    p.add_argument("--course", help="nbgrader course folder to copy to instructors (default: this repository)")
    p.add_argument("--ip", default="127.0.0.1", help="address to serve on (0.0.0.0 for a class on the network)")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--hub-port", type=int, default=8081, help="the hub's internal API port (loopback)")
    p.add_argument("--proxy-api-port", type=int, default=8001, help="the proxy's API port (loopback)")
    p.add_argument("--cull-timeout", type=int, default=CULL_TIMEOUT, metavar="SECONDS",
                   help=f"stop a server or kernel idle this long; files stay (default {CULL_TIMEOUT}; 0: never)")
    p.set_defaults(handler=hub)
