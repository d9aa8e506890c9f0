"""The house rules a linter can hold (docs/STYLE.md, "Code"): ruff with the rules in pyproject.toml's
[tool.ruff] over the whole tree, and every `# noqa` naming its rule and giving the reason.

Ruff runs here, inside the README's test command, so CI enforces it like any other test; a developer runs
the same check with `.venv/bin/ruff check .` (and `--fix` for what it can fix).
"""
from __future__ import annotations

import re
import subprocess
import sys

from paths import ROOT

# `# noqa: BLE001 - why` or `# noqa: E402  (why)`: one or more rule codes, then words.
NOQA = re.compile(r"#\s*noqa\b(?P<rest>.*)$")
WITH_REASON = re.compile(r"^:\s*[A-Z]+[0-9]+(?:\s*,\s*[A-Z]+[0-9]+)*\b\s*[-(—:]?\s*\(?\w")
FOLDERS = ("autograder", "coursekit", "tests", "benchmarks", "deploy", "solutions", "course")


def noqa_without_reason(source: str) -> list[int]:
    """Line numbers of `# noqa` comments that name no rule or give no reason."""
    bad = []
    for number, line in enumerate(source.splitlines(), 1):
        found = NOQA.search(line)
        if found and not WITH_REASON.match(found.group("rest")):
            bad.append(number)
    return bad


def test_the_reason_rule_reads_noqa_comments():
    assert noqa_without_reason("import x  # noqa: F401 - re-exported for specs") == []
    assert noqa_without_reason("import x  # noqa: E402  (after sys.path)") == []
    assert noqa_without_reason("except Exception:  # noqa: BLE001, E722 - one bad input never stops the rest") == []
    assert noqa_without_reason("import x  # noqa: F401") == [1]
    assert noqa_without_reason("import x  # noqa") == [1]
    assert noqa_without_reason("a = 1\nimport x  # noqa: because") == [2]


def test_every_noqa_names_its_rule_and_reason():
    bad = []
    files = [p for folder in FOLDERS for p in (ROOT / folder).rglob("*.py")
             if "node_modules" not in p.parts and ".ipynb_checkpoints" not in p.parts
             and p.name != "test_lint.py"]    # this file spells bad examples on purpose
    assert len(files) > 100, "the scan found too few files to mean anything"
    for path in files:
        bad += [f"{path.relative_to(ROOT)}:{n}" for n in noqa_without_reason(path.read_text(encoding="utf-8"))]
    assert not bad, "a `# noqa` must name its rule and say why (docs/STYLE.md):\n" + "\n".join(bad)


def test_ruff_finds_nothing():
    run = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "--output-format", "concise", "."],
                         cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, f"ruff check . (pyproject.toml [tool.ruff]) found:\n{run.stdout}{run.stderr}"
