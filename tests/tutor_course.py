"""A course folder for the tutor's tests, and the instructor text that must never leave in a request.

`tutor_course(base)` copies what a class's machine holds (released labs, lessons, solutions, specs)
and adds a grading secret, so the tests can check that none of the instructor's part is ever sent.
`instructor_fragments(root)` lists that part as text fragments: lines of solution and hidden-test code
in solutions/, lines of the specs, the arguments of the hidden cases the secret draws, the literal text
of hint_texts.yaml's rungs, and the secret, less
anything the released material says too (a line a student sees anyway is no leak).
"""
from __future__ import annotations

import json
import re
import secrets
import shutil
from pathlib import Path

import yaml

from autograder.spec import SPEC_FILE
from paths import ROOT

BLOCK = re.compile(r"### BEGIN (SOLUTION|HIDDEN TESTS)(.*?)### END \1", re.S)


def tutor_course(base: Path) -> Path:
    root = base / "course-root"
    for folder in ("labs", "course", "solutions"):        # solutions/<lab>/ holds each spec.py too
        shutil.copytree(ROOT / folder, root / folder, ignore=shutil.ignore_patterns("__pycache__", ".ipynb_checkpoints"))
    (root / "instructor-secret").write_text(secrets.token_hex(32) + "\n")
    return root


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def released_text(root: Path) -> str:
    """Everything a student may see, normalized: released labs, their checks, lessons."""
    parts = []
    for path in sorted((root / "labs").rglob("*")) + sorted((root / "course").rglob("*.ipynb")):
        if path.suffix == ".ipynb":
            parts += ["".join(c["source"]) for c in json.loads(path.read_text())["cells"]]
        elif path.suffix == ".json":
            parts.append(path.read_text())
    return _norm("\n".join(parts))


def instructor_fragments(root: Path) -> dict[str, str]:
    """fragment -> where it comes from, for every piece of instructor text a student never sees."""
    seen = released_text(root)
    found: dict[str, str] = {}

    def add(text: str, where: str, shortest: int) -> None:
        text = _norm(text)
        if len(text) >= shortest and text not in seen:
            found.setdefault(text, where)

    for path in sorted((root / "solutions").rglob("*.ipynb")):
        for cell in json.loads(path.read_text())["cells"]:
            for kind, body in BLOCK.findall("".join(cell["source"])):
                for line in body.splitlines():
                    add(line, f"{path.relative_to(root)} ({kind.lower()})", 16)
    for path in sorted((root / "solutions").glob(f"*/{SPEC_FILE}")):
        for line in path.read_text().splitlines():
            add(line, str(path.relative_to(root)), 24)
    prompts = yaml.safe_load((ROOT / "coursekit" / "hint_texts.yaml").read_text())
    for prompt_id, entry in prompts.items():
        for expression in [*entry["hints"], entry["answer"]]:
            for literal in re.split(r"\{[^{}]*\}|\n|\"", expression):     # the text around f-string fields
                add(literal, f"hint_texts.yaml {prompt_id}", 25)
    secret = (root / "instructor-secret").read_text().strip()
    for lab_spec in sorted((root / "solutions").glob(f"lab*/{SPEC_FILE}")):
        for text, where in hidden_case_texts(lab_spec.parent.name, secret.encode()):
            add(text, where, 12)
    found[secret] = "instructor-secret"
    return found


def hidden_case_texts(lab: str, secret: bytes) -> list[tuple[str, str]]:
    """The arguments of every hidden case the grader would draw with this course's secret, as text."""
    from autograder.judge.hidden import hidden_cases
    from autograder.spec import load_spec

    spec = load_spec(lab)
    texts = []
    for task in spec.tasks:
        for case in hidden_cases(spec, task, secret):
            for value in (*case.args, *case.kwargs.values()):
                text = value if isinstance(value, str) else repr(value)   # a string as the lab would quote it
                if len(text) <= 300 and " at 0x" not in text:
                    texts.append((text, f"hidden case of {spec.lab_id}/{task.grade_id}"))
    return texts


def leaks(sent: str, fragments: dict[str, str]) -> list[str]:
    sent = _norm(sent)
    return [f"{where}: {fragment[:80]!r}" for fragment, where in fragments.items() if fragment in sent]
