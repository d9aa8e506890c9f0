"""`autograder lms ...`: the LMS side of the instructor's day (docs/LMS.md).

    autograder lms keys [--rotate] [--jwks]    the tool's key set (made on first use); --jwks prints its public half
    autograder lms post LAB [--dry-run]        scores to the LAB's line item through AGS: idempotent, resumable

Settings: <course root>/lti/platform.json (what the LMS admin copied back; --platform FILE for another);
keys: <course root>/lti/tool-keys.json (0600; instructors only).
"""
from __future__ import annotations

import json
import sys
from pathlib import Path


def _paths(args, course) -> tuple[Path, Path]:
    from coursekit.app.lti.keys import keys_path

    platform = Path(args.platform) if args.platform else course.root / "lti" / "platform.json"
    return platform, Path(args.keys) if args.keys else keys_path(course.root)


def cmd_keys(args, course) -> int:
    from coursekit.app.lti import keys

    _, path = _paths(args, course)
    try:
        data = keys.rotate(path) if args.rotate else keys.ensure(path)[0]
    except keys.ToolKeyError as error:
        raise RuntimeError(str(error)) from None
    if args.jwks:
        print(json.dumps(keys.public_jwks(data), indent=1))
        return 0
    kept = ", ".join(k["kid"] for k in data["keys"])
    print(f"{path}: signing with {data['current']}; the served key set holds {kept}", file=sys.stderr)
    return 0


def cmd_post(args, course) -> int:
    from autograder.lms.passback import post
    from coursekit.app.lti.keys import ToolKeyError
    from coursekit.app.lti.platform import PlatformError, load_platform

    platform_file, keys_file = _paths(args, course)
    try:
        platform = load_platform(platform_file)
    except PlatformError as error:
        raise ValueError(f"{error} (docs/LMS.md says what goes there)") from None
    failed = 0
    for lab in course.resolve_labs(args.lab):
        try:
            report = post(course, platform, keys_file, lab, dry_run=args.dry_run)
        except ToolKeyError as error:
            raise RuntimeError(str(error)) from None
        print(report.render())
        failed += report.failed
    if failed:
        print(f"{failed} score(s) not posted: run the same command again to send them", file=sys.stderr)
    return 1 if failed else 0


def post_after_grading(course, lab: str) -> int:
    """`autograder grade LAB --post-to-lms`: the same as `autograder lms post LAB` with the default files;
    1 when a score was not posted or the LMS could not be used (grade then exits 1), else 0."""
    import argparse

    args = argparse.Namespace(platform=None, keys=None, lab=lab, dry_run=False)
    try:
        return cmd_post(args, course)
    except (ValueError, RuntimeError, FileNotFoundError) as error:
        print(f"autograder grade --post-to-lms: {error}", file=sys.stderr)
        return 1


def register(sub) -> None:
    lms = sub.add_parser("lms", help="LTI 1.3: grades back to the LMS, the tool's keys (docs/LMS.md)")
    inner = lms.add_subparsers(dest="lms_command", required=True)
    for name, handler, text in (("keys", cmd_keys, "the tool's key set: made on first use, --rotate for a new one"),
                                ("post", cmd_post, "post scores to the LMS through AGS (idempotent, resumable)")):
        p = inner.add_parser(name, help=text)
        p.add_argument("--platform", help="the LMS's settings (default: <course root>/lti/platform.json)")
        p.add_argument("--keys", help="the tool's key set (default: <course root>/lti/tool-keys.json)")
        p.set_defaults(handler=handler)
        if name == "keys":
            p.add_argument("--rotate", action="store_true", help="a new signing key; the previous one stays in the key set")
            p.add_argument("--jwks", action="store_true", help="print the public key set (JSON) an LMS admin can paste")
        else:
            p.add_argument("lab", help="a graded lab or quiz")
            p.add_argument("--dry-run", action="store_true", help="show what would be sent; send and record nothing")
