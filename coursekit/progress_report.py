"""Where a learner stands in the whole course: every lesson (its quiz), lab and module test, in
course order, each not started / in progress / done with what its score means, and the share done
per module. `course progress` prints it; the start page shows it as a table.

The course's shape comes from the same place as the start page (the course outline, coursekit/outline.py,
and the notebooks that exist); the learner's state from the progress store (coursekit.progress).
"""
from __future__ import annotations

import html
import re
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from . import progress
from .outline import load_outline
from .paths import WORK_FOLDER, course_root

NOT_STARTED, IN_PROGRESS, DONE = "not started", "in progress", "done"
MEANING = ("What the scores mean: a lesson quiz counts the questions right on the first try (you may try "
           "again until right); a module test counts the answers right when you submitted it, against its "
           "pass mark; a lab counts the tasks passing their visible tests at your best check (`course check` or `check_here()`; "
           "in a class, your instructor grades with hidden tests as well; on your own, the visible tests are "
           "your check).")


@dataclass(frozen=True)
class Item:
    title: str
    path: str      # relative to the course root
    state: str
    detail: str
    next: bool = False   # the first step in course order that is not done: where to go on


@dataclass(frozen=True)
class Module:
    title: str
    items: list[Item]

    @property
    def done(self) -> int:
        return sum(i.state == DONE for i in self.items)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


EXERCISES = Path(__file__).with_name("exercises") / "lessons"   # <lesson>.yaml, coursekit/exercises/bank.py


def lesson_exercises(lesson: str) -> list[str]:
    """The ids of a lesson's exercises, read from its file without computing their answers (that
    imports the course's models: seconds, too slow for `course progress`)."""
    import yaml

    path = EXERCISES / f"{lesson}.yaml"
    try:
        entries = (yaml.safe_load(path.read_text(encoding="utf-8")) or {}).get("exercises") or []
    except (OSError, yaml.YAMLError, AttributeError):
        return []     # a broken file is `course doctor`'s and the exercise's own error to report
    return [e["id"] for e in entries if isinstance(e, dict) and isinstance(e.get("id"), str)]


def exercises_detail(lesson: str, revealed: dict) -> str:
    ids = lesson_exercises(lesson)
    done = sum(bool(revealed.get(i, {}).get("reveals")) for i in ids)
    return f"; exercises: {done} of {len(ids)} answered and revealed" if ids else ""


def lesson_item(title: str, path: str, attempts: list[dict], exercises: str = "") -> Item:
    """Done once any attempt finished, with the best one: a new attempt never undoes a lesson. The
    lesson's exercises (`exercises`, a detail) are said, not counted: a quiz decides the state."""
    item = _quiz_item(title, path, attempts)
    return replace(item, detail=item.detail + exercises)


def _quiz_item(title: str, path: str, attempts: list[dict]) -> Item:
    if not attempts:
        return Item(title, path, NOT_STARTED, "quiz not answered yet")
    latest = attempts[-1]
    answered = sum(bool(v.get("correct")) for v in latest.get("items", {}).values())
    so_far = f"quiz: {answered} of {len(latest.get('shown', []))} questions answered right"
    finished = [a for a in attempts if progress.attempt_finished(a)]
    if not finished:
        return Item(title, path, IN_PROGRESS, so_far)
    best = max(finished, key=lambda a: a.get("score", 0))
    # "done" means every question ended right; the first-try score is said apart, so it never reads as a pass mark
    detail = (f"quiz: all answered right; {best.get('score', 0)} of {best.get('total', 0)} on the first try"
              f" (best of {_plural(len(attempts), 'attempt')})")
    if not progress.attempt_finished(latest):
        detail += f"; a new attempt is under way ({so_far.removeprefix('quiz: ')})"
    return Item(title, path, DONE, detail)


def test_item(title: str, path: str, attempts: list[dict]) -> Item:
    if not attempts:
        return Item(title, path, NOT_STARTED, "not taken yet")
    best = max(attempts, key=lambda a: a["score"] / a["total"] if a["total"] else 0)
    mark = f"pass mark {100 * best.get('pass_mark', 0):.0f}%"
    state = DONE if any(a["passed"] for a in attempts) else IN_PROGRESS
    verdict = "passed" if state == DONE else "not passed yet"
    return Item(title, path, state, f"{verdict}: best {best['score']}/{best['total']} right, {mark} "
                                    f"({_plural(len(attempts), 'attempt')})")


def lab_item(title: str, path: str, checks: list[dict]) -> Item:
    """The best check counts (a check in a freshly restarted kernel may see less); the latest is said too."""
    if not checks:
        return Item(title, path, NOT_STARTED, "not checked yet")
    last = checks[-1]
    best = max(checks, key=lambda c: c["passed"] / c["total"] if c["total"] else 0)
    latest = "" if (last["passed"], last["total"]) == (best["passed"], best["total"]) else \
        f"; your latest check: {last['passed']} of {last['total']}"
    if best["total"] and best["passed"] == best["total"]:
        return Item(title, path, DONE, f"all {best['total']} tasks passed their visible tests at your best check{latest}")
    return Item(title, path, IN_PROGRESS,
                f"{best['passed']} of {best['total']} tasks pass their visible tests at your best check{latest}")


@dataclass(frozen=True)
class Step:
    kind: str      # "lesson", "lab" or "test"
    key: str       # the quiz bank, lab or module id its progress is stored under
    title: str
    path: str      # relative to the course root; a lab's is the release notebook in labs/


def course_outline(root: Path) -> list[tuple[str, list[Step]]]:
    """(module title, its steps in course order: lessons, lab, module test) for each module that exists."""
    outline = []
    for module in load_outline(root):
        steps = [Step("lesson", f"{module.id}-l{lesson.number}", f"Lesson {lesson.number}: {lesson.title}",
                      lesson.path.relative_to(root).as_posix()) for lesson in module.lessons]
        for lab in module.labs:
            if lab.released:
                name = re.sub(r"^Lab \d+:\s*", "", lab.title)
                steps.append(Step("lab", lab.id, f"Lab {module.number}: {name} ({lab.id})",
                                  lab.notebook.relative_to(root).as_posix()))
        if module.test:
            steps.append(Step("test", module.id, f"Module {module.number} test", module.test.relative_to(root).as_posix()))
        if module.folder or steps:
            outline.append((f"Module {module.number}: {module.title}", steps))
    return outline


def work_path(step: Step) -> str:
    """Where the learner opens a step: a lab in their own copy under work/, the rest where it is."""
    return f"{WORK_FOLDER}/{step.key}/{step.key}.ipynb" if step.kind == "lab" else step.path


def course_report(root: Path | None = None, data: dict | None = None) -> list[Module]:
    root = root or course_root()
    data = progress.load() if data is None else data
    modules = []
    for title, steps in course_outline(root):
        items = []
        for step in steps:
            if step.kind == "lesson":
                items.append(lesson_item(step.title, step.path, data["quizzes"].get(step.key, {}).get("attempts", []),
                                         exercises_detail(step.key, data.get("exercises", {}))))
            elif step.kind == "lab":
                path = work_path(step) if (root / work_path(step)).exists() else step.path
                items.append(lab_item(step.title, path, data["labs"].get(step.key, {}).get("checks", [])))
            else:
                items.append(test_item(step.title, step.path,
                                       data["module_tests"].get(step.key, {}).get("attempts", [])))
        modules.append(Module(title, items))
    return mark_next(modules)


def mark_next(modules: list[Module]) -> list[Module]:
    """The same modules with the first step not done marked `next` (none once everything is done)."""
    for m, module in enumerate(modules):
        for i, item in enumerate(module.items):
            if item.state != DONE:
                items = [*module.items[:i], replace(item, next=True), *module.items[i + 1:]]
                return [*modules[:m], Module(module.title, items), *modules[m + 1:]]
    return modules


def next_item(modules: list[Module]) -> Item | None:
    return next((i for m in modules for i in m.items if i.next), None)


def format_report(modules: list[Module]) -> str:
    lines = []
    for module in modules:
        share = module.done / len(module.items) if module.items else 0
        lines.append(f"{module.title}: {module.done} of {len(module.items)} done ({100 * share:.0f}%)")
        lines += [f"{'->' if i.next else '  '} {i.state:<12} {i.title}: {i.detail}" for i in module.items]
    upcoming = next_item(modules)
    lines.append(f"Next: {upcoming.title} ({upcoming.path})" if upcoming else "Everything is done.")
    lines.append(MEANING)
    return "\n".join(lines)


def report_html(modules: list[Module], link_from: str = "course") -> str:
    """The same report as a table; links are relative to the folder `link_from` (the start page's).
    Column headers, and one row group per module headed by its title, so a screen reader can say
    which module and column a cell belongs to."""
    rows = ["<thead><tr><th scope='col'>State</th><th scope='col'>Lesson, lab or test</th>"
            "<th scope='col'>Result</th></tr></thead>"]
    for module in modules:
        share = module.done / len(module.items) if module.items else 0
        rows.append(f"<tbody><tr><th colspan='3' scope='rowgroup' style='text-align:left'>{html.escape(module.title)}: "
                    f"{module.done} of {len(module.items)} done ({100 * share:.0f}%)</th></tr>")
        for item in module.items:
            href = Path("/".join([".."] * len(Path(link_from).parts)), item.path).as_posix()
            state = f"<strong>{item.state}, next</strong>" if item.next else item.state
            rows.append(f"<tr class='course-progress-{item.state.replace(' ', '-')}"
                        f"{' course-progress-next' if item.next else ''}'><td>{state}</td>"
                        f"<td><a href='{html.escape(href)}'>{html.escape(item.title)}</a></td>"
                        f"<td>{html.escape(item.detail)}</td></tr>")
        rows.append("</tbody>")
    return (f"<table class='course-progress-table'>{''.join(rows)}</table>"
            f"<p style='color: var(--jp-ui-font-color2)'>{html.escape(MEANING)}</p>")


# What `course progress` prints and the start page shows (progress.py keeps the store; this reads it).
def summary_report(root: Path | None = None, data: dict | None = None) -> dict:
    """`course progress`'s report as data (`--json` prints it; the text is made from it): the store, any
    unreadable store it backed up, and every lesson, lab and module test with its state, in course order."""
    data = progress.load() if data is None else data
    modules = course_report(root, data)
    upcoming = next_item(modules)
    return {"store": str(progress.store_path()), "recovered": data["recovered"],
            "modules": [{"title": m.title, "done": m.done, "items": [asdict(i) for i in m.items]} for m in modules],
            "next": asdict(upcoming) if upcoming else None, "meaning": MEANING}


def format_summary(report: dict | None = None) -> str:
    """`course progress`: every lesson, lab and module test with its state (`report`: summary_report's)."""
    report = summary_report() if report is None else report
    lines = [f"Progress store: {report['store']}"]
    for note in report["recovered"]:
        lines.append(f"NOTE: an unreadable store was backed up to {note['backup']} on {note['time']} ({note['error']})")
    lines.append(format_report([Module(m["title"], [Item(**i) for i in m["items"]]) for m in report["modules"]]))
    return "\n".join(lines)


def progress_html() -> str:
    """The start page's table: the same report as `course progress`."""
    notes = "".join(f"<p class='course-progress-note'>An unreadable store was backed up to "
                    f"<code>{html.escape(n['backup'])}</code> ({html.escape(n['error'])}).</p>"
                    for n in progress.load()["recovered"])
    return (f"<div class='course-progress' style='color: var(--jp-ui-font-color1)'>{notes}{report_html(course_report())}"
            f"<p style='color: var(--jp-ui-font-color2)'>Stored in <code>{html.escape(str(progress.store_path()))}</code>. "
            f"{snapshot_note()}</p></div>")


def snapshot_note() -> str:
    """An output saved with a notebook outlives the store it read: say when it was read."""
    from datetime import datetime

    return (f"<span class='course-progress-snapshot'>Read at {datetime.now():%H:%M on %d %B %Y}: run this cell "
            "again to see your progress now (<code>course progress</code> always does).</span>")


def show_progress():
    """Display the same per-module summary as `course progress` (the start page calls this)."""
    from IPython.display import HTML, display

    display(HTML(progress_html()))
