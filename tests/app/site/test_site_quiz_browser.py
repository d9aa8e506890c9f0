"""The built website's quizzes, answered in Chromium as a reader would: a lesson quiz right and wrong,
numbers typed with thousands separators and units, a whole module test passed and failed at its pass
mark, progress kept across a reload, exported to a file that `course progress --import` reads and
imported back from `course progress --export`, at a laptop's and a phone's size, with no console
errors. The right answers come from the Python engine (coursekit.quiz.engine), never from the page.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from urllib.parse import urljoin

import pytest

from coursekit.quiz.bank import load_all_banks
from coursekit.quiz.engine import grade, instantiate
from paths import ROOT
from coursekit.quiz.engine import correct_response

LESSON = "course/m1-training-vs-inference/02-memory-per-parameter.html"
TEST = "course/m1-training-vs-inference/module-test.html"
SIZES = {"laptop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}
BANKS = load_all_banks(ROOT / "quizzes")
ITEMS = {it.id: it for b in BANKS.values() for it in b.items}


def question(fieldset):
    """The Python engine's Question for what a fieldset shows (its item and exported variant)."""
    return instantiate(ITEMS[fieldset.get_attribute("data-item")], int(fieldset.get_attribute("data-variant")))


OURS = ("quiz-types.js", "quiz-engine.js", "quiz-item-types.js", "progress-validator.js", "progress-format.js", "progress.js", "progress-store.js", "quiz.js")


def watch_errors(page) -> list[str]:
    """Uncaught errors in the page, and anything the quiz scripts log as an error. (The theme's own
    console errors, its CDN scripts unreachable offline, are the site build's to fix, not the quizzes'.)"""
    errors: list[str] = []

    def console(message) -> None:
        if message.type == "error" and any(name in (message.location or {}).get("url", "") for name in OURS):
            errors.append(message.text)

    page.on("console", console)
    page.on("pageerror", lambda e: errors.append(str(e)))
    return errors


def watch_requests(page, site_url: str) -> list[str]:
    """Requests to anywhere but the site from now on: answering a quiz must make none."""
    outside: list[str] = []
    page.on("request", lambda r: outside.append(r.url) if not r.url.startswith((site_url, "blob:", "data:")) else None)
    return outside


def choose(fieldset, q, right: bool) -> None:
    """Pick the key (or a wrong option) by its letter, as a reader sees it."""
    if q.type == "single":
        key = correct_response(q)
        index = key if right else next(i for i in q.order if i != key)
        # by its accessible name, which starts with its letter ("D. ..."); an option text may hold "D." too
        shown = " ".join(re.sub(r"`|\*\*", "", q.option_texts[index]).split())    # as the page shows its markup
        fieldset.get_by_role("radio", name=f"{q.letter(index)}. {shown}", exact=True).check()
        return
    key = correct_response(q)
    wanted = key if right else (key - {min(key)} if len(key) > 1 else set(q.order) - key or {q.order[0]})
    for i in q.order:
        box = fieldset.locator(f"input[value='{i}']")
        box.set_checked(i in wanted)


def type_number(fieldset, q, right: bool) -> str:
    value = q.answer if right else q.answer * 10 + 7
    text = f"{value:,.10g}"
    fieldset.locator("input.course-quiz-number").fill(text)
    return text


def accessible(page, selector: str) -> str:
    """axe's serious or critical WCAG 2.1 A/AA violations inside `selector`, as text ("" when none)."""
    from axe import blocking, run_axe, summary

    return summary(blocking(run_axe(page, {"include": [[selector]]})))


def fits(page) -> bool:
    """Nothing in the quiz is wider than the page (no sideways scrolling on a phone)."""
    return page.evaluate("() => [...document.querySelectorAll('.course-quiz')].every(q => q.scrollWidth <= q.clientWidth + 1)"
                         " && document.documentElement.scrollWidth <= window.innerWidth + 1")


@pytest.mark.slow
@pytest.mark.browser
@pytest.mark.parametrize("size", SIZES)
def test_lesson_quiz_answered_right_and_wrong_and_kept_after_reload(site_url, page, size):
    page.set_viewport_size(SIZES[size])
    errors = watch_errors(page)
    page.goto(urljoin(site_url, LESSON))
    quiz = page.locator(".course-site-quiz")
    # a draw with a number to type: New attempt until one comes (each draw is this browser's own)
    for _ in range(10):
        if quiz.locator("input.course-quiz-number").count() and quiz.locator("input[type=radio], input[type=checkbox]").count():
            break
        quiz.get_by_role("button", name="New attempt").click()
    fieldsets = quiz.locator("fieldset.course-quiz-item")
    assert fieldsets.count() == BANKS["m1-l2"].show
    outside = watch_requests(page, site_url)
    typed = [i for i in range(fieldsets.count()) if fieldsets.nth(i).locator("input.course-quiz-number").count()]
    numeric = fieldsets.nth(typed[0])
    choice = fieldsets.nth(next(i for i in range(fieldsets.count()) if i not in typed))

    q = question(numeric)
    units = f", in {q.item.units}" if q.item.units else ""
    box = numeric.get_by_role("textbox", name=f"Answer to question {typed[0] + 1}{units}:", exact=True)
    assert box.count() == 1                                          # the number box is named by its label
    assert not grade(q, 36500.0).correct, "36,500 is meant to be a wrong answer here"
    box.fill("36,500")
    numeric.locator("input.course-quiz-number").press("Enter")       # Enter checks, as the keyboard user expects
    feedback = numeric.locator(".course-quiz-feedback-area")
    assert "Not quite." in feedback.inner_text() and "Try again." in feedback.inner_text()
    assert "Read your answer as 36,500" in feedback.inner_text()
    numeric.locator("input.course-quiz-number").fill("abc")
    numeric.get_by_role("button", name="Check answer").click()
    assert "Could not read 'abc' as a number" in feedback.inner_text() and "did not count as a try" in feedback.inner_text()
    text = f"{q.answer:,.10g} {q.item.units}".strip()                # the key with its units, separators and all
    numeric.locator("input.course-quiz-number").fill(text)
    numeric.get_by_role("button", name="Check answer").click()
    assert feedback.inner_text().startswith("Correct."), feedback.inner_text()
    assert "Why:" in feedback.inner_text()                             # the explanation after a right answer
    assert numeric.locator("input.course-quiz-number").is_disabled()

    c = question(choice)
    choose(choice, c, right=False)
    choice.get_by_role("button", name="Check answer").click()
    choice_feedback = choice.locator(".course-quiz-feedback-area")
    assert choice_feedback.inner_text().startswith("Not quite."), choice_feedback.inner_text()
    choose(choice, c, right=True)
    choice.get_by_role("button", name="Check answer").click()
    assert choice_feedback.inner_text().startswith("Correct.")
    score = quiz.locator(".course-quiz-score")
    assert score.inner_text() == f"Score: 0 / {fieldsets.count()} right on the first try (2 of {fieldsets.count()} answered)"
    assert fits(page)
    assert accessible(page, ".course-site-quiz") == ""                # with its feedback showing
    assert not outside, outside
    assert quiz.locator("mjx-container").count() == 0                  # prices in a bank are text, not maths

    page.reload()
    quiz = page.locator(".course-site-quiz")
    assert quiz.locator(".course-quiz-score").inner_text() == score_text(fieldsets.count(), 0, 2)
    kept = quiz.locator(f"fieldset[data-item='{numeric.get_attribute('data-item')}'] .course-quiz-feedback-area")
    assert "Answered correctly earlier in this attempt." in kept.inner_text()
    page.goto(site_url)
    row = page.locator(".course-progress-table tr", has_text="Lesson 2: Memory in bytes per parameter")
    assert "in progress" in row.inner_text() and "quiz: 2 of 3 questions answered right" in row.inner_text()
    assert fits(page)
    assert not errors, errors


def score_text(n: int, right: int, answered: int) -> str:
    return f"Score: {right} / {n} right on the first try ({answered} of {n} answered)"


def answer_test(page, right: int) -> list:
    """Answer the module test's 15 questions, the first `right` of them right, the rest wrong."""
    fieldsets = page.locator(".course-module-test fieldset.course-quiz-item")
    assert fieldsets.count() == 15
    given = []
    for i in range(15):
        fieldset = fieldsets.nth(i)
        q = question(fieldset)
        if q.type in ("single", "multi"):
            choose(fieldset, q, right=i < right)
            given.append((q.id, q.seed, i < right, None))
        else:
            given.append((q.id, q.seed, i < right, type_number(fieldset, q, right=i < right)))
    return given


def verdicts(page) -> list[bool]:
    heads = page.locator(".course-module-test fieldset.course-quiz-item .course-quiz-feedback > b")
    return [heads.nth(i).inner_text() == "Correct." for i in range(heads.count())]


@pytest.mark.slow
@pytest.mark.browser
@pytest.mark.parametrize("size", SIZES)
def test_module_test_passes_at_80_percent_and_progress_travels_to_jupyterlab_and_back(site_url, page, size,
                                                                                       tmp_path):
    page.set_viewport_size(SIZES[size])
    errors = watch_errors(page)
    page.goto(urljoin(site_url, TEST))
    test = page.locator(".course-module-test")
    assert "15 questions; pass mark 80%" in test.inner_text()
    test.get_by_role("button", name="Submit test").click()           # nothing answered: a warning, not a score
    assert "Unanswered: 1, 2, 3" in test.locator(".course-quiz-result").inner_text()
    given = answer_test(page, right=12)
    test.get_by_role("button", name="Submit test").click()
    got = verdicts(page)
    assert got == [g[2] for g in given], [(g, v) for g, v in zip(given, got) if g[2] != v]
    result = test.locator(".course-quiz-result")
    assert result.inner_text().strip() == "Score: 12 / 15 (80%): passed", result.inner_text()
    assert test.locator(".course-quiz-key").count() == 15             # the key of every question after submitting
    assert fits(page)
    assert accessible(page, ".course-site-quiz") == ""

    page.reload()
    # the last submitted attempt's review comes back: every answer with its verdict and the key
    review = page.locator(".course-module-test-review")
    heads = review.locator("fieldset.course-quiz-item .course-quiz-feedback > b")
    assert [heads.nth(i).inner_text() == "Correct." for i in range(heads.count())] == [g[2] for g in given]
    assert review.locator(".course-quiz-key").count() == 15
    assert accessible(page, ".course-site-quiz") == ""
    page.get_by_role("button", name="Start attempt 2").click()
    given = answer_test(page, right=11)
    page.locator(".course-module-test").get_by_role("button", name="Submit test").click()
    got = verdicts(page)
    assert got == [g[2] for g in given], [(g, v) for g, v in zip(given, got) if g[2] != v]
    assert page.locator(".course-quiz-result").inner_text().strip() == "Score: 11 / 15 (73%): not passed (pass mark 80%)"

    page.goto(site_url)
    row = page.locator(".course-progress-table tr", has_text="Module 1 test")
    assert row.inner_text().split("\t")[0].strip() == "done"
    assert "passed: best 12/15 right, pass mark 80% (2 attempts)" in row.inner_text()
    assert accessible(page, ".course-site-progress") == ""
    with page.expect_download() as download:
        page.get_by_role("button", name="Export progress to a file").click()
    exported = tmp_path / "from-site.json"
    download.value.save_as(exported)

    env = {**os.environ, "COURSE_PROGRESS_DIR": str(tmp_path / "store")}
    course = [sys.executable, "-m", "coursekit.app.cli", "progress"]
    done = subprocess.run([*course, "--import", str(exported)], env=env, capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    report = subprocess.run(course, env=env, capture_output=True, text=True, cwd=ROOT).stdout
    assert "done         Module 1 test: passed: best 12/15 right, pass mark 80% (2 attempts)" in report, report
    bad = tmp_path / "bad.json"
    bad.write_text('{"schema": 1, "quizzes": []}')
    refused = subprocess.run([*course, "--import", str(bad)], env=env, capture_output=True, text=True, cwd=ROOT)
    assert refused.returncode == 1 and f"{bad}: not a course progress file: quizzes: expected an object" in refused.stderr

    # JupyterLab's store, exported, imported into a fresh browser: the same report there
    store = tmp_path / "from-jupyterlab.json"
    assert subprocess.run([*course, "--export", str(store)], env=env, capture_output=True, cwd=ROOT).returncode == 0
    page.evaluate("() => localStorage.clear()")
    page.reload()
    assert "not taken yet" in page.locator(".course-progress-table tr", has_text="Module 1 test").inner_text()
    # an empty store says why it may look empty (another address keeps its own) and how to carry progress over
    where = page.locator(".course-progress-where").first
    assert "Nothing is recorded at this address yet" in where.inner_text() and "import it here" in where.inner_text()
    page.get_by_label("Import progress from a file", exact=False).set_input_files(str(store))
    page.locator(".course-progress-status", has_text="Imported").wait_for()
    assert "passed: best 12/15 right" in page.locator(".course-progress-table tr", has_text="Module 1 test").inner_text()
    assert "Nothing is recorded" not in page.locator(".course-progress-where").first.inner_text()
    page.get_by_label("Import progress from a file", exact=False).set_input_files(str(bad))
    # the file is read asynchronously: wait for its verdict
    page.locator(".course-progress-status", has_text="bad.json: not a course progress file: quizzes: expected an object").wait_for()
    assert json.loads(store.read_text())["schema"] == 1
    assert fits(page)
    assert not errors, errors


@pytest.mark.slow
@pytest.mark.browser
def test_a_lesson_quiz_is_answered_with_the_keyboard_alone(site_url, page):
    errors = watch_errors(page)
    page.goto(urljoin(site_url, LESSON))
    quiz = page.locator(".course-site-quiz")
    first = quiz.locator("fieldset.course-quiz-item").first
    first.locator("input").first.focus()
    if first.locator("input.course-quiz-number").count():
        page.keyboard.type("1,5")                                      # a decimal comma, read as 1.5
        page.keyboard.press("Tab")                                     # on to its Check button
    else:
        page.keyboard.press("Space")                                   # choose the first option
        page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.textContent") == "Check answer 1"
    page.keyboard.press("Enter")
    feedback = first.locator(".course-quiz-feedback-area")
    assert re.match(r"(Correct|Not quite)\.", feedback.inner_text()), feedback.inner_text()
    assert feedback.get_attribute("aria-live") == "polite"
    quiz.get_by_role("button", name="New attempt").focus()
    page.keyboard.press("Enter")
    assert page.evaluate("() => document.activeElement.className") == "course-quiz-title"
    assert not errors, errors


@pytest.mark.slow
@pytest.mark.browser
def test_progress_this_browser_cannot_read_is_kept_aside_and_said(site_url, page):
    errors = watch_errors(page)
    page.goto(site_url)
    key = page.evaluate("() => Object.keys(localStorage).find(k => k.startsWith('llm-course-progress:'))")
    assert key == "llm-course-progress:/"                             # one store for this site's root
    page.evaluate("key => localStorage.setItem(key, '{\"schema\": 1, \"quizz')", key)
    page.reload()
    note = page.locator(".course-progress-note")
    assert "could not read was kept aside as llm-course-progress:/.corrupt-" in note.inner_text()
    kept = page.evaluate("() => Object.keys(localStorage).filter(k => k.includes('.corrupt-'))")
    assert len(kept) == 1 and page.evaluate("k => localStorage.getItem(k)", kept[0]) == '{"schema": 1, "quizz'
    assert "not started, next" in page.locator(".course-progress-table").inner_text()

    # an attempt drawn from an older bank (an item since removed) cannot come back: a new one starts
    store = json.loads(page.evaluate("k => localStorage.getItem(k)", key))
    store["quizzes"]["m1-l2"] = {"module": "m1", "attempts": [{
        "seed": "site-x-1", "source": "site", "attempt": 1, "started": "2026-01-01T00:00:00+00:00",
        "shown": ["m1-l2-removed"], "variants": {"m1-l2-removed": 0}, "score": 0, "total": 1,
        "items": {"m1-l2-removed": {"tries": 1, "first_correct": False, "correct": False, "responses": [1]}}}]}
    page.evaluate("([k, v]) => localStorage.setItem(k, v)", [key, json.dumps(store)])
    page.goto(urljoin(site_url, LESSON))
    assert page.locator(".course-quiz-history").inner_text() == "Attempt 2. Earlier attempts: #1: 0/1."
    assert page.locator(".course-site-quiz fieldset.course-quiz-item").count() == BANKS["m1-l2"].show
    assert not errors, errors


@pytest.mark.slow
@pytest.mark.browser
def test_a_file_is_checked_against_the_schema_offline_from_the_folder(site, page, tmp_path):
    """The start page opened as a file (file://, nothing else reachable): the validator compiled from
    coursekit/progress.schema.json at build time refuses a bad file in `course progress --import`'s words."""
    from coursekit.app.progress_transfer import read_export

    inside = site.resolve().as_uri() + "/"
    outside = []
    page.route("**/*", lambda route: route.continue_() if route.request.url.startswith(inside)
               else (outside.append(route.request.url), route.abort()))
    errors = watch_errors(page)
    page.goto(inside + "index.html")
    bad = tmp_path / "bad.json"
    bad.write_text('{"schema": 1, "quizzes": {"m1-l1": {"attempts": [{"seed": 1, "shown": [2], "items": {}}]}}, '
                   '"module_tests": {}, "labs": {"lab1-roofline": {"checks": [{"passed": 6, "total": 5}]}}}')
    with pytest.raises(ValueError) as python:
        read_export(bad.read_text(), "bad.json")
    page.get_by_label("Import progress from a file", exact=False).set_input_files(str(bad))
    status = page.locator(".course-progress-status", has_text="bad.json: not a course progress file")
    status.wait_for()
    assert status.inner_text() == str(python.value)
    assert "quizzes.m1-l1.attempts[0].shown: expected a list of question ids" in status.inner_text()
    assert not outside and not errors, (outside, errors)


@pytest.mark.slow
@pytest.mark.browser
def test_an_exercise_revealed_on_the_site_shows_in_its_progress_and_travels(site_url, page, tmp_path):
    """Predict, commit, reveal an exercise on a lesson page: the start page's table says so, and the
    exported file carries it to `course progress --import` (JupyterLab's table says the same)."""
    errors = watch_errors(page)
    page.goto(urljoin(site_url, LESSON))
    box = page.locator(".course-exercise").first
    box.locator("input").fill(box.get_attribute("data-answer"))
    box.get_by_role("button", name="Commit my answer").click()
    box.get_by_role("button", name="Reveal the worked answer").click()
    assert "matches the worked answer" in box.locator(".course-exercise-result").inner_text()
    page.goto(urljoin(site_url, "index.html"))
    row = page.locator(".course-progress-table tr", has_text="Lesson 2: Memory in bytes per parameter")
    assert "exercises: 1 of 3 answered and revealed" in row.inner_text(), row.inner_text()
    with page.expect_download() as download:
        page.get_by_role("button", name="Export progress to a file").click()
    exported = tmp_path / "course-progress.json"
    download.value.save_as(exported)
    env = {**os.environ, "COURSE_PROGRESS_DIR": str(tmp_path / "jupyterlab")}
    done = subprocess.run([sys.executable, "-m", "coursekit.app.cli", "progress", "--import", str(exported)],
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    shown = subprocess.run([sys.executable, "-m", "coursekit.app.cli", "progress"], env=env, capture_output=True,
                           text=True, timeout=120).stdout
    line = next(line for line in shown.splitlines() if "Memory in bytes per parameter" in line)
    assert line.endswith("; exercises: 1 of 3 answered and revealed"), shown
    assert not errors, errors


@pytest.mark.slow
@pytest.mark.browser
def test_after_importing_a_jupyterlab_attempt_the_lesson_page_counts_it(site_url, page, tmp_path):
    """A quiz half answered in JupyterLab, exported and imported here: the lesson page numbers its own
    attempt after it and lists it, as the start page reports it."""
    errors = watch_errors(page)
    env = {**os.environ, "COURSE_PROGRESS_DIR": str(tmp_path / "jupyterlab")}
    bank = BANKS["m1-l2"]
    shown = [it.id for it in bank.items[:bank.show]]
    code = ("from coursekit import progress\n"
            f"for i in {shown[:2]!r}: progress.record_quiz('m1-l2', module='m1', seed=7, shown={shown!r}, "
            "item_id=i, response=0, correct=True)\n")
    assert subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT).returncode == 0
    exported = tmp_path / "from-jupyterlab.json"
    course = [sys.executable, "-m", "coursekit.app.cli", "progress"]
    assert subprocess.run([*course, "--export", str(exported)], env=env, capture_output=True, cwd=ROOT).returncode == 0
    page.goto(site_url)
    page.get_by_label("Import progress from a file", exact=False).set_input_files(str(exported))
    page.locator(".course-progress-status", has_text="Imported").wait_for()
    row = page.locator(".course-progress-table tr", has_text="Lesson 2: Memory in bytes per parameter")
    assert f"2 of {bank.show} questions answered right" in row.inner_text(), row.inner_text()
    page.goto(urljoin(site_url, LESSON))
    history = page.locator(".course-quiz-history").inner_text()
    assert history == f"Attempt 2. Earlier attempts: #1 (in JupyterLab): 2/{bank.show}.", history
    assert not errors, errors


@pytest.mark.browser
def test_a_renamed_module_test_shows_the_attempts_under_its_former_id(page, tmp_path):
    """quiz.js on a page of its own (no site build): an attempt this browser submitted under the bank's
    former id is listed, reviewed and followed by attempt 2 once the bank is m9-test."""
    from coursekit.app.site.quizzes import CONF_LINES, copy_assets, quiz_html

    banks_folder = tmp_path / "banks"
    shutil.copytree(ROOT / "tests" / "fixtures" / "quiz" / "good", banks_folder)
    bank_file = banks_folder / "m9" / "module-test.yaml"
    bank_file.write_text(bank_file.read_text().replace("id: m9-module-test\n",
                                                       "id: m9-test\nformerly: [m9-module-test]\n", 1))
    banks = load_all_banks(banks_folder)
    copy_assets(tmp_path / "_static")
    scripts = re.search(r"html_js_files = \[(.*?)\]", CONF_LINES, re.S).group(1)
    tags = "".join(f'<script src="_static/{name}"></script>' for name in re.findall(r'"([\w.-]+)"', scripts))
    (tmp_path / "test.html").write_text(f"<!DOCTYPE html><html><head>{tags}</head><body>"
                                        f"{quiz_html(banks['m9-test'], banks)}</body></html>")
    errors = watch_errors(page)
    page.goto((tmp_path / "test.html").as_uri())
    assert page.get_by_role("button", name="Submit test").count() == 1         # nothing submitted yet
    first = page.evaluate("""() => {
        const key = Object.keys(localStorage).find((k) => k.startsWith("llm-course-progress:"));
        const store = JSON.parse(localStorage.getItem(key));
        const bank = JSON.parse(document.querySelector("script.course-quiz-data").textContent);
        const shown = bank.pool.slice(0, 15), variants = Object.fromEntries(shown.map((id) => [id, 0]));
        store.module_tests.m9 = {attempts: [{time: "2026-01-01T00:00:00+00:00", bank: "m9-module-test",
            student: `site-${store.learner}`, attempt: 1, seed: `site-${store.learner}-test-1`, source: "site",
            shown, variants, score: 3, total: 15, pass_mark: 0.8, passed: false, items: {}}]};
        localStorage.setItem(key, JSON.stringify(store));
        return shown;
    }""")
    page.reload()
    assert "Attempt 1: 3/15 (20%), not passed" in page.locator(".course-quiz-history").inner_text()
    review = page.locator(".course-module-test-review fieldset.course-quiz-item")
    assert [review.nth(i).get_attribute("data-item") for i in range(review.count())] == first
    page.get_by_role("button", name="Start attempt 2").click()
    assert page.get_by_role("button", name="Submit test").count() == 1
    assert not errors, errors
