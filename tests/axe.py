"""axe-core, the accessibility engine accessibility teams use, run inside a Playwright page.

axe-core comes from npm (tests/a11y/package.json, pinned by its package-lock.json; `./course.sh test`
runs `npm ci` there), never from a CDN: the test machines have no internet. Only the WCAG 2.0/2.1
A and AA rules run; a serious or critical violation fails the calling test.
"""
from __future__ import annotations

import json
from pathlib import Path

AXE = Path(__file__).resolve().parent / "a11y" / "node_modules" / "axe-core" / "axe.min.js"
WCAG_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
BLOCKING = ("serious", "critical")


def axe_version() -> str:
    return json.loads((AXE.parent / "package.json").read_text())["version"]


def run_axe(page, context: dict | None = None, disable: tuple[str, ...] = ()) -> list[dict]:
    """axe's WCAG 2.1 A/AA violations on the page, or in `context` (axe's {"include": [[selector]]})."""
    if not AXE.exists():
        raise AssertionError(f"{AXE} is missing: run ./course.sh test (it runs npm ci in tests/a11y)")
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))
    options = {"runOnly": {"type": "tag", "values": WCAG_AA}, "resultTypes": ["violations"],
               "rules": {rule: {"enabled": False} for rule in disable}}
    result = page.evaluate("([context, options]) => axe.run(context || document, options)", [context, options])
    return result["violations"]


def blocking(violations: list[dict]) -> list[dict]:
    return [v for v in violations if v.get("impact") in BLOCKING]


def summary(violations: list[dict], where: str = "") -> str:
    """One line per rule: its id, impact, how many elements and the first one, for the failure message."""
    lines = []
    for v in violations:
        first = v["nodes"][0]["target"] if v["nodes"] else ""
        lines.append(f"{where}{v['id']} ({v['impact']}): {len(v['nodes'])} node(s), e.g. {first} - {v['help']}")
    return "\n".join(lines)
