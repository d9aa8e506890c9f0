"""docs/AUTHORING.md, followed literally in a temporary private folder: every shell block marked
`<!-- walkthrough: run -->` runs as written, every marked cell and file is written as shown; between
`generate` and `collect` three students hand in (right, a plausible wrong answer, the untouched
stub). The outcome: the lab validates clean, only the student version reaches labs/, the batch grades
2, 0 and 0, the export says so, the outline lists the lab (`course progress`, the start page), a
student's `course check` passes, and the quiz bank checks."""
from __future__ import annotations

import csv
import os
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from paths import ROOT

DOC = ROOT / "docs" / "AUTHORING.md"
STEP = re.compile(r"<!-- walkthrough: (\w+)([^>]*)-->\s*```(\w+)\n(.*?)```", re.S)
RIGHT = ("def kv_cache_bytes(layers, kv_heads, head_dim, tokens, batch, bytes_per_element):\n"
         "    return 2 * layers * kv_heads * head_dim * tokens * batch * bytes_per_element")
WRONG_BATCH = ("def kv_cache_bytes(layers, kv_heads, head_dim, tokens, batch, bytes_per_element):\n"
               "    return 2 * layers * kv_heads * head_dim * tokens * bytes_per_element")


def steps() -> list[tuple[str, list[str], str]]:
    found = [(kind, args.split(), body) for kind, args, _, body in STEP.findall(DOC.read_text(encoding="utf-8"))]
    assert found, f"{DOC}: no walkthrough steps"
    return found


def edit_cell(notebook: Path, args: list[str], source: str) -> None:
    old, rest = args[0], args[1:]
    new = next((a for a in rest if "=" not in a), old)
    points = dict(a.split("=", 1) for a in rest if "=" in a).get("points")
    nb = nbformat.read(notebook, as_version=4)
    cells = [c for c in nb.cells if (c.metadata.get("nbgrader") or {}).get("grade_id") == old]
    assert len(cells) == 1, f"docs/AUTHORING.md names cell {old!r}, which the template does not have"
    cells[0].source = source.rstrip("\n")
    cells[0].metadata["nbgrader"]["grade_id"] = new
    if points:
        cells[0].metadata["nbgrader"]["points"] = float(points)
    nbformat.write(nb, notebook)


def answer(released: Path, body: str | None) -> str:
    nb = nbformat.read(released, as_version=4)
    for cell in nb.cells:
        if body is not None and (cell.metadata.get("nbgrader") or {}).get("grade_id") == "impl_kv":
            cell.source = body
    return nbformat.writes(nb)


@pytest.mark.slow
def test_authoring_md_from_nothing_to_a_graded_batch(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in {"COURSE_ROOT", "COURSE_GRADING_SECRET", "COURSE"}}
    env.update(HOME=str(home), COURSE_PROGRESS_DIR=str(tmp_path / "progress"),
               PATH=str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", ""))
    course = home / "private-course"
    exports: list[str] = []
    outputs: list[str] = []
    solution = course / "solutions" / "kv-lab" / "kv-lab.ipynb"
    for kind, args, body in steps():
        if kind == "run":
            if "autograder --root \"$COURSE\" collect" in body:          # the students hand in first
                inbox = tmp_path / "inbox"
                inbox.mkdir()
                released = course / "labs" / "kv-lab" / "kv-lab.ipynb"
                (inbox / "ada.ipynb").write_text(answer(released, RIGHT))
                (inbox / "ben.ipynb").write_text(answer(released, WRONG_BATCH))
                (inbox / "cy.ipynb").write_text(answer(released, None))
            script = "set -e\n" + "\n".join(exports) + "\n" + body
            done = subprocess.run(["bash", "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True,
                                  timeout=900)
            assert done.returncode == 0, f"docs/AUTHORING.md block failed:\n{body}\n{done.stdout}\n{done.stderr}"
            outputs.append(done.stdout)
            exports += [line for line in body.splitlines() if line.startswith("export ")]
        elif kind == "cell":
            edit_cell(solution, args, body)
        elif kind == "file":
            (course / args[0]).write_text(body, encoding="utf-8")
        else:
            raise AssertionError(f"docs/AUTHORING.md: unknown walkthrough step {kind!r}")

    assert any("kv-lab: valid" in out for out in outputs), outputs
    release = course / "labs" / "kv-lab"
    assert sorted(p.name for p in release.iterdir()) == ["kv-lab.checks.json", "kv-lab.ipynb"]
    assert "2 * layers" not in (release / "kv-lab.ipynb").read_text()
    rows = {r["student_id"]: r for r in csv.DictReader((tmp_path / "grades.csv").open())}
    assert {s: (r["state"], float(r["score"]), float(r["max_score"])) for s, r in rows.items()} == {
        "ada": ("graded", 2.0, 2.0), "ben": ("graded", 0.0, 2.0), "cy": ("graded", 0.0, 2.0)}, rows
    assert (course / "instructor-secret").is_file() and (course / "quizzes" / "kv-quiz.yaml").is_file()
    # `autograder new --module` recorded the lab in the outline: progress and the start page list it
    assert any("Module 6: Serving memory: 0 of 1 done" in out and
               "Lab 6: kv-lab: how big is the KV cache? (kv-lab): not checked yet" in out for out in outputs), outputs
    from coursekit.index import build_index
    start = "\n".join(c.source for c in build_index(course).cells)
    assert "## Module 6: Serving memory\n\n- Lab (graded): [kv-lab: how big is the KV cache?](../work/kv-lab/kv-lab.ipynb)" in start
    assert any("all 6 items pass their self-test" in out for out in outputs), outputs

    work = tmp_path / "work"
    work.mkdir()
    (work / "kv-lab.ipynb").write_text((tmp_path / "inbox" / "ada.ipynb").read_text())
    check = subprocess.run([sys.executable, "-m", "coursekit.app.cli", "check", str(work / "kv-lab.ipynb")], cwd=tmp_path,
                           env={**env, "COURSE_ROOT": str(course)}, capture_output=True, text=True, timeout=300)
    assert check.returncode == 0 and "PASS  Task (KV cache bytes)" in check.stdout, check.stdout + check.stderr
    assert not (ROOT / "labs" / "kv-lab").exists() and not (ROOT / "solutions" / "kv-lab").exists()
