"""The website's calculators as the tests read them: a calculator's inputs and outputs off the page, its
controls by role and name, and how its results differ from what coursekit computes."""
from __future__ import annotations

import json
import math

UNITS_AS_TEXT = {"text"}


def read(section) -> tuple[dict, dict]:
    """The inputs the calculator computed from, and its results as the page holds them."""
    inputs = json.loads(section.get_attribute("data-inputs"))
    outputs = {}
    for dd in section.locator("dd[data-output]").all():
        value = dd.get_attribute("data-value")
        outputs[dd.get_attribute("data-output")] = (
            value if dd.get_attribute("data-unit") in UNITS_AS_TEXT else None if value == "" else float(value))
    return inputs, outputs


def slider(section, label: str):
    return section.get_by_role("slider", name=f"{label}, slider", exact=True)


def box(section, label: str):
    return section.get_by_role("spinbutton", name=label, exact=True)


def mismatches(expected: dict, got: dict) -> list[str]:
    if "error" in expected:
        return [] if "error" in got else [f"coursekit says {expected['error']!r}, the script gave {got}"]
    bad = []
    for key, want in expected.items():
        have = got.get(key, "missing")
        if isinstance(want, str) or want is None:
            ok = have == want
        else:
            ok = isinstance(have, (int, float)) and math.isclose(have, want, rel_tol=1e-9, abs_tol=0.0)
        if not ok:
            bad.append(f"{key}: coursekit {want!r}, script {have!r}")
    return bad
