"""`autograder similarity LAB`: renamed, reordered and re-spaced copies are found, independent honest
solutions are not paired, reference code pasted under another name is found, and hostile or unreadable
submissions are skipped with a reason and shown escaped, never run (tests/similarity_corpus.py)."""
from __future__ import annotations

import json
import os
import random
import re
import shutil
import sys

import pytest

from paths import ROOT
import similarity_corpus as corpus
from autograder.similarity.fingerprint import K, W, kgram_hashes, tokens, winnow

sys.path.insert(0, str(ROOT / "tests" / "fixtures" / "autograder"))


def texts(source: str) -> list[str]:
    return [t.text for t in tokens(source)]


def test_tokens_ignore_names_literals_comments_and_spacing_but_keep_apis():
    one = "def f(xs, n=3):\n    total = sum(x * 2 for x in xs)  # double\n    return total.item() + n\n"
    two = "%%time\ndef g(values,k = 99):\n\n    acc=sum( v*7 for v in values )\n    return acc.item()+k\n"
    assert texts(one) == texts(two)
    assert texts(one) != texts(one.replace(".item()", ".numpy()"))     # an API call is not a name to rename
    assert texts("x = f'{a}' + 'b'") == texts("y = 'c' + \"d\"")
    assert texts("def broken(:\n    x = [") == ["def", "N", "(", ":", "N", "=", "["]   # kept up to the error


def test_winnowing_finds_every_shared_run_of_k_plus_w_minus_1_tokens():
    rng = random.Random(7)
    for _ in range(200):
        words = [str(rng.randrange(6)) for _ in range(K + W - 1)]
        a = [str(rng.randrange(9)) for _ in range(rng.randrange(40))] + words
        b = words + [str(rng.randrange(9)) for _ in range(rng.randrange(40))]
        ha, hb = kgram_hashes(a), kgram_hashes(b)
        assert {ha[p] for p in winnow(ha)} & {hb[p] for p in winnow(hb)}


@pytest.fixture(scope="module")
def lab3(tmp_path_factory):
    from autograder.course import Course
    from autograder.similarity.report import build

    course = corpus.make_course(tmp_path_factory.mktemp("similarity"))
    return course, build(Course(course), corpus.LAB)


def _pairs(report) -> set[tuple[str, str]]:
    return {tuple(sorted((m.a.doc.name, m.b.doc.name))) for m in report.pairs}


def test_copies_are_found_and_independent_solutions_are_not_paired(lab3):
    _, report = lab3
    assert sorted(report.compared) == sorted(corpus.everyone())
    assert _pairs(report) == {("hana", "hana_copy"), ("jo", "jo_copy")}
    for match in report.pairs:
        assert match.score >= 0.9, (match.a.doc.name, match.b.doc.name, match.score)
    jo = next(m for m in report.pairs if "jo" in m.a.doc.name)
    # the moved cells still match cell for cell: regions pair the same task on both sides
    assert {(m_a, m_b) for m_a, m_b in ((jo.a.doc.cells[r.cell_a].label, jo.b.doc.cells[r.cell_b].label)
                                        for r in jo.regions)} <= {(g, g) for g in corpus.HONEST["jo"]}


def test_reference_code_pasted_under_another_name_is_found(lab3):
    _, report = lab3
    found = {(m.a.doc.name, m.b.doc.name) for m in report.references}
    assert ("lee", "coursekit.calc.kvcache.fragmentation_summary") in found
    assert ("max", "solution notebook, impl_allocator") in found
    assert ("max", "solution notebook, impl_generate") in found
    honest = {name for name, _ in found} & set(corpus.HONEST)
    assert not honest, [f for f in found if f[0] in honest]


def test_the_starter_and_the_course_library_are_left_out(lab3):
    _, report = lab3
    untouched = next(m for m in report.pairs if m.a.doc.name == "hana")
    starter = corpus.json.loads((lab3[0] / "labs" / corpus.LAB / corpus.NB).read_text())
    given = "".join("".join(c["source"]) for c in starter["cells"])
    for region in untouched.regions:     # no region is made only of lines the starter already has
        cell = untouched.a.doc.cells[region.cell_a]
        first, last = cell.toks[region.first_a].line, cell.toks[region.last_a - 1].end
        assert any(line.strip() and line not in given for line in cell.source.split("\n")[first - 1:last])
    assert report.boilerplate[0].startswith(f"{corpus.LAB}/{corpus.NB}")
    assert any(name.startswith("coursekit.nn.decoder.") for name in report.boilerplate)


def test_command_prints_a_table_writes_json_and_an_escaped_page_and_never_the_gradebook(lab3, tmp_path, capsys):
    from autograder import cli

    course = lab3[0]
    out = tmp_path / "report.json"
    assert cli.main(["--root", str(course), "similarity", corpus.LAB, "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    assert re.search(r"hana\s+hana_copy\s+\d+%", printed) and "A report to read, not a grade" in printed
    data = json.loads(out.read_text())
    assert {tuple(sorted((p["student_a"], p["student_b"]))) for p in data["pairs"]} == {("hana", "hana_copy"),
                                                                                       ("jo", "jo_copy")}
    assert data["pairs"][0]["regions"][0]["a"]["lines"][0] >= 1
    page = (course / "autograded" / ".autograder" / "reports" / f"{corpus.LAB}-similarity.html").read_text()
    assert '<html lang="en">' in page and "Content-Security-Policy" in page and "<script" not in page
    assert not (course / "gradebook.db").exists() and not (course / "autograded" / ".autograder" / "results.sqlite").exists()
    assert cli.main(["--root", str(course), "similarity", corpus.LAB, "--json", "-"]) == 0
    assert json.loads(capsys.readouterr().out)["lab"] == corpus.LAB


def test_page_structure_for_screen_readers_and_keyboards(lab3):
    from autograder.similarity.page import render

    page = render(lab3[1])
    assert page.count("<table") == page.count("<caption>") > 2
    assert page.count("<h1>") == 1 and "<h2>" in page and "<h3 " in page
    assert page.count("<pre") == page.count('<pre tabindex="0">')
    assert all(f'id="{anchor}"' in page for anchor in re.findall(r'href="#([^"]+)"', page))


def test_the_page_states_the_reference_rules_minimum_and_lists_this_labs_reference_code(lab3):
    from autograder.similarity.page import render

    report = lab3[1]
    page = render(report)
    assert f"at least {report.min_tokens} tokens, are found in a submission" in page     # the rule, whole
    listed = re.search(r"This lab's reference code</summary>\n<ul>\n(.*?)</ul>", page, re.S).group(1)
    forbidden = {name for task in corpus_spec(lab3).tasks for name in task.forbids if name.startswith("coursekit")}
    assert forbidden and all(f"<li>{name}</li>" in listed for name in forbidden)
    cells = sum(name.startswith("solution notebook") for name in report.reference_code)
    assert listed.count("<li>") == len(forbidden) + cells
    left_out = page.split("<h2>Left out of matching</h2>", 1)[1].split("</details>", 1)[0]
    assert left_out.count("<li>") < len(report.boilerplate) and "coursekit.nn.decoder" in left_out   # by module


def corpus_spec(lab3):
    from autograder.course import Course

    return Course.find(lab3[0]).spec(corpus.LAB)


@pytest.fixture
def hostile(tmp_path):
    """The toy lab's hostile corpus (tests/fixtures/autograder/submissions.py), a starter made from its
    solution as nbgrader does, files that are not notebooks, and a cell that tries to break the page."""
    import submissions

    course = tmp_path / "course"
    shutil.copytree(submissions.HERE / "toy-lab", course / "solutions" / "toy-lab")
    shutil.copy(ROOT / "nbgrader_config.py", course)
    release = json.loads(submissions.SOLUTION.read_text())
    for cell in release["cells"]:
        cell["source"] = re.sub(r"( *)### BEGIN SOLUTION\n.*?### END SOLUTION",
                                r"\1# YOUR CODE HERE\n\1raise NotImplementedError()", "".join(cell["source"]), flags=re.S)
    (course / "labs" / "toy-lab").mkdir(parents=True)
    (course / "labs" / "toy-lab" / "toy-lab.ipynb").write_text(json.dumps(release))
    submissions.write_all(course)
    lab = course / "submitted"
    (lab / "nest" / "toy-lab").mkdir(parents=True)
    (lab / "nest" / "toy-lab" / "toy-lab.ipynb").write_text("[" * 100_000 + "]" * 100_000)
    for student in ("pipe", "zero", "folder", "gone"):
        (lab / student / "toy-lab").mkdir(parents=True)
    os.mkfifo(lab / "pipe" / "toy-lab" / "toy-lab.ipynb")
    (lab / "zero" / "toy-lab" / "toy-lab.ipynb").symlink_to("/dev/zero")
    (lab / "folder" / "toy-lab" / "toy-lab.ipynb").mkdir()
    padded = json.loads((lab / "honest" / "toy-lab" / "toy-lab.ipynb").read_text())
    padded["cells"] += [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
                         "source": f"x{i} = [" + "1, " * 100_000 + "]"} for i in range(8)]
    (lab / "padded" / "toy-lab").mkdir(parents=True)
    (lab / "padded" / "toy-lab" / "toy-lab.ipynb").write_text(json.dumps(padded))
    xss = json.loads((lab / "honest" / "toy-lab" / "toy-lab.ipynb").read_text())
    attack = '"</code></pre><script>alert(1)</script><img src=x onerror=alert(2)>"\n' * 3
    for name in ("xss_one", "xss_two"):
        nb = json.loads(json.dumps(xss))
        nb["cells"].append({"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
                            "source": "def helper(values):\n    total = 0\n    for v in values:\n"
                                      "        total += v * v - 1\n    return total / len(values)\n" + attack})
        (lab / name / "toy-lab").mkdir(parents=True)
        (lab / name / "toy-lab" / "toy-lab.ipynb").write_text(json.dumps(nb))
    return course


def test_hostile_corpus_skips_what_it_cannot_read_and_shows_the_rest_escaped(hostile, capsys):
    from autograder import cli
    from autograder.course import Course
    from autograder.similarity.page import render
    from autograder.similarity.report import build

    report = build(Course(hostile), "toy-lab")
    skipped = dict(report.skipped)
    for student, reason in {"not_json": "invalid JSON", "empty_file": "invalid JSON", "not_utf8": "not UTF-8",
                            "not_notebook": "no list of cells", "nest": "nested too deeply",
                            "pipe": "named pipe", "zero": "symbolic link", "folder": "a folder",
                            "gone": "no notebook submitted", "padded": "too much code to compare"}.items():
        assert reason in skipped.pop(student), (student, skipped)
    assert not skipped
    assert {"honest", "xss_one", "memory_hog", "read_secret", "old_format"} <= set(report.compared)
    assert ("xss_one", "xss_two") in {(m.a.doc.name, m.b.doc.name) for m in report.pairs}
    page = render(report)
    assert "<script" not in page and "<img" not in page
    assert "&lt;/code&gt;&lt;/pre&gt;&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert cli.main(["--root", str(hostile), "similarity", "toy-lab"]) == 0
    assert "nest: invalid JSON: nested too deeply" in capsys.readouterr().out


@pytest.mark.browser
@pytest.mark.slow
def test_page_passes_axe(lab3, tmp_path, browser):
    from axe import blocking, run_axe, summary
    from autograder.similarity.page import render

    path = tmp_path / "similarity.html"
    path.write_text(render(lab3[1]), encoding="utf-8")
    # axe is injected as a script, which the page's policy forbids; 640x400 is 1280x800 at 200% zoom
    context = browser.new_context(bypass_csp=True, viewport={"width": 640, "height": 400})
    page = context.new_page()
    try:
        page.goto(path.as_uri())
        found = run_axe(page)
        assert not blocking(found), summary(blocking(found))
        seen = page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
        assert seen[0] <= seen[1] + 1, seen          # code scrolls inside its box, the page never sideways
    finally:
        context.close()


def test_code_in_a_cell_marked_as_a_test_cell_is_still_compared(tmp_path):
    """Metadata is the student's to edit: a copy moved into cells claiming to be the course's tests is found."""
    from autograder.course import Course
    from autograder.similarity.report import build

    course = corpus.make_course(tmp_path, {"hana": corpus.HONEST["hana"], "sly": corpus.COPIES["hana_copy"],
                                           "ivan": corpus.HONEST["ivan"]})
    path = course / "submitted" / "sly" / corpus.LAB / corpus.NB
    nb = json.loads(path.read_text())
    for cell in nb["cells"]:
        meta = cell["metadata"].get("nbgrader") or {}
        if meta.get("solution"):
            cell["metadata"]["nbgrader"] = {**meta, "solution": False, "grade": True, "locked": True, "points": 0}
    path.write_text(json.dumps(nb))
    report = build(Course(course), corpus.LAB)
    assert _pairs(report) == {("hana", "sly")}
    # a passage more than N students share is an idiom with --max-common N (MOSS's -m): here, everything
    assert build(Course(course), corpus.LAB, max_common=1).pairs == []
