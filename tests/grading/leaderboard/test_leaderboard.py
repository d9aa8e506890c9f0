"""`autograder leaderboard LAB` (issue 38): ranked by the grader's own measurements stored with each result
(SubmissionResult.speed), never by what a notebook says; opt-in names only; a table, JSON without student
ids, and an HTML page that runs nothing a name says and passes axe."""
from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest

from pipeline_course import LAB, NB, generate_course

HOSTILE = '<script>alert(1)</script>\u202eevil\x07'


def speed(*ratios, noisy=()):
    return {f"t{n}": {"ratio": r, "pairs": [r, r, r], "spread": 0.0, "rounds": 1, "noisy": f"t{n}" in noisy,
                      "learner_s": 1.0, "reference_s": r} for n, r in enumerate(ratios, 1)}


def hand_in(course_root: Path, student: str, score: float, measured: dict, *, name: str | None = None,
            claims: str = "") -> None:
    """A submitted notebook (opting in with `name`, or claiming numbers of its own in a cell) and its row."""
    from autograder.course import Course
    from autograder.record.store import Row, Store
    from autograder.submitted import submission_hash

    course = Course(course_root)
    nb = nbformat.read(course_root / "labs" / LAB / NB, as_version=4)
    if name is not None:
        nb.cells.insert(0, nbformat.v4.new_code_cell(f"LEADERBOARD_NAME = {name!r}"))
    nb.cells.append(nbformat.v4.new_code_cell(claims or f"# {student}"))
    path = course_root / "submitted" / student / LAB / NB
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)
    spec = course.spec(LAB)
    result = {"student_id": student, "lab_id": LAB, "status": "graded", "tasks": [], "flags": [], "speed": measured}
    sub = next(iter(course.submissions(LAB, student)))
    with Store(course.results_db) as store:
        store.put(Row(LAB, student, submission_hash(course, sub), "test", "graded", score, spec.total_points, None,
                      result))


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    root = generate_course(tmp_path_factory.mktemp("leaderboard"))
    hand_in(root, "ada", 6, speed(1.8, 1.2), name="Ada L.")
    hand_in(root, "ben", 6, speed(0.9, 1.1))                               # no opt-in: anonymous
    hand_in(root, "cai", 3, speed(5.0), name="Cai", claims="SPEEDUP = 1000.0  # my own measurement")
    hand_in(root, "dee", 6, speed(2.5, 2.5, noisy=("t2",)), name=HOSTILE)
    hand_in(root, "eve", 6, {})                                            # graded, never timed: not ranked
    return root


@pytest.mark.slow
def test_ranked_by_score_then_the_graders_own_speed(course):
    from autograder.course import Course
    from autograder.leaderboard.board import standings

    board = standings(Course(course), LAB)
    assert [s.student_id for s in board] == ["dee", "ada", "ben", "cai"]
    assert [s.rank for s in board] == [1, 2, 3, 4]
    ada = board[1]
    assert ada.name == "Ada L." and abs(ada.speed - (1.8 * 1.2) ** 0.5) < 1e-9
    assert board[2].name == "anonymous"                     # ben did not opt in
    # cai's notebook claims 1000x: the board shows the grader's 5.0x and ranks cai on the score first
    assert board[3].ratios == {"t1": 5.0}
    assert board[0].noisy == ["t2"]


def test_a_name_is_text_cut_to_size_and_the_page_runs_none_of_it(course):
    from autograder.course import Course
    from autograder.leaderboard import page
    from autograder.leaderboard.board import NAME_CHARS, standings

    board = standings(Course(course), LAB)
    dee = board[0]
    assert "\u202e" not in dee.name and "\x07" not in dee.name and len(dee.name) <= NAME_CHARS
    html = page.html(LAB, board)
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert "script-src" not in html and "default-src 'none'" in html
    data = page.as_json(LAB, board)
    assert [e["name"] for e in data["entries"]][:3] == [dee.name, "Ada L.", "anonymous"]
    assert not any(f'"{s}"' in json.dumps(data) for s in ("ada", "ben", "cai", "dee", "eve"))   # no student id
    assert all(set(e) == {"rank", "name", "score", "max_score", "speed", "ratios", "noisy", "remeasured"}
               for e in data["entries"])


def test_the_command_writes_the_table_json_and_page(course, tmp_path):
    import subprocess
    import sys

    out = tmp_path / "board"
    done = subprocess.run([sys.executable, "-m", "autograder.cli", "--root", str(course), "leaderboard", LAB,
                           "--rerun", "0", "--out", str(out)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1.47x" in done.stdout and "anonymous" in done.stdout and "(noisy)" in done.stdout, done.stdout
    assert json.loads((out / f"{LAB}.json").read_text())["entries"][1]["name"] == "Ada L."
    assert (out / f"{LAB}.html").read_text().count("<tr>") == 5       # the header and four ranked engines
    missing = subprocess.run([sys.executable, "-m", "autograder.cli", "--root", str(course), "leaderboard", "nope"],
                             capture_output=True, text=True, timeout=300)
    assert missing.returncode == 1 and "no lab 'nope'" in missing.stdout


def leaderboard_cli(course, *args, env=None):
    import os
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-m", "autograder.cli", "--root", str(course), "leaderboard", LAB,
                           "--rerun", "0", *args], capture_output=True, text=True, timeout=300,
                          env={**os.environ, **(env or {})})


def test_publish_puts_the_board_in_the_exchange_readable_by_all_and_refuses_a_planted_folder(course, tmp_path):
    import os
    import stat

    config, exchange = tmp_path / "config", tmp_path / "exchange"
    config.mkdir()
    (config / "nbgrader_config.py").write_text(f"c = get_config()\nc.Exchange.root = {str(exchange)!r}\n")
    exchange.mkdir(mode=0o1777)
    env = {"JUPYTER_CONFIG_PATH": str(config)}
    done = leaderboard_cli(course, "--out", str(tmp_path / "board"), "--publish", env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    shown = exchange / "llm-train-vs-infer" / "leaderboard"
    assert f"/services/leaderboard/{LAB}" in done.stdout
    for name in (f"{LAB}.html", f"{LAB}.json"):
        assert (shown / name).read_bytes() == (tmp_path / "board" / name).read_bytes()
        assert stat.S_IMODE((shown / name).stat().st_mode) == 0o644
    assert stat.S_IMODE(shown.stat().st_mode) == 0o755 and not list(shown.glob(".*partial"))

    # a folder someone else made first in the world-writable exchange is refused by path, nothing copied
    planted = tmp_path / "other-exchange"
    (planted / "llm-train-vs-infer" / "leaderboard").mkdir(parents=True)
    os.chown(planted / "llm-train-vs-infer", 65534, 65534)
    (config / "nbgrader_config.py").write_text(f"c = get_config()\nc.Exchange.root = {str(planted)!r}\n")
    refused = leaderboard_cli(course, "--out", str(tmp_path / "board"), "--publish", env=env)
    assert refused.returncode == 1 and "not published" in refused.stdout, refused.stdout
    assert "llm-train-vs-infer is not a folder of yours" in refused.stdout
    assert not list((planted / "llm-train-vs-infer" / "leaderboard").iterdir())


def test_publish_without_an_exchange_says_it_is_for_a_class_hub(course, tmp_path):
    done = leaderboard_cli(course, "--out", str(tmp_path / "board"), "--publish",
                           env={"JUPYTER_CONFIG_PATH": str(tmp_path)})
    assert done.returncode == 1 and "no nbgrader exchange is configured" in done.stdout, done.stdout
    assert (tmp_path / "board" / f"{LAB}.html").is_file()       # the local page is still written


@pytest.mark.browser
@pytest.mark.slow
def test_the_page_passes_axe_at_200_percent_zoom(course, tmp_path, browser):
    from axe import blocking, run_axe, summary

    from autograder.course import Course
    from autograder.leaderboard import page
    from autograder.leaderboard.board import standings

    from coursekit.app.hub.leaderboard import index_page

    board, listing = tmp_path / "leaderboard.html", tmp_path / "leaderboards.html"
    board.write_text(page.html(LAB, standings(Course(course), LAB)), encoding="utf-8")
    listing.write_text(index_page([LAB, "lab6-serving"], "/services/leaderboard/"), encoding="utf-8")  # the hub's list
    context = browser.new_context(bypass_csp=True, viewport={"width": 640, "height": 400})
    try:
        view = context.new_page()
        for path in (board, listing):
            view.goto(path.as_uri())
            found = run_axe(view)
            assert not blocking(found), f"{path.name}: " + summary(blocking(found))
    finally:
        context.close()


@pytest.mark.slow
def test_the_top_entry_of_a_real_lab6_grading_is_measured_again_before_publishing(lab6_class, tmp_path):
    """Lab 6's solution handed in with a name, and an engine without its last milestone handed in without
    one, graded for real (tokens and the grader's own timing; tests/lab6_class.py); then `leaderboard
    --rerun 1`: the top entry alone is graded again, so its published ratios are a second measurement."""
    import shutil

    import lab6_class as lab6
    from autograder.course import Course
    from autograder.leaderboard.board import standings
    from autograder.record.status import current_rows
    from autograder.record.store import Store

    course = tmp_path / "course"
    shutil.copytree(lab6_class / "course", course)       # the rerun grades again: the shared grading stays

    def timings():
        with Store(Course(course).results_db) as store:
            return {r.student_id: r.result["speed"] for r in current_rows(Course(course), store, lab6.LAB)}

    first, measured = standings(Course(course), lab6.LAB), timings()
    assert [(s.name, s.score, len(s.ratios)) for s in first] == [(lab6.LEADER, 12.0, 4), ("anonymous", 9.0, 3)], first
    out = lab6.autograder(course, "leaderboard", lab6.LAB, "--rerun", "1", "--no-progress", "--out",
                          str(tmp_path / "board"))
    assert lab6.LEADER in out and "1 top entries measured again" in out, out
    published = json.loads((tmp_path / "board" / f"{lab6.LAB}.json").read_text())["entries"]
    assert [e["remeasured"] for e in published] == [True, False]
    again = standings(Course(course), lab6.LAB)
    assert again[0].ratios.keys() == first[0].ratios.keys() and all(r > 0 for r in again[0].ratios.values())
    now = timings()
    assert now["fran"] != measured["fran"]      # a second timing: dozens of CPU-second floats, never all the same
    assert now["no-speculation"] == measured["no-speculation"]                      # not in the top 1: untouched
    assert [e["ratios"] for e in published] == [s.ratios for s in again]
