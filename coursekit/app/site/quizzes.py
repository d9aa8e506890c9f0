"""Quizzes that work in the static site: each bank exported as JSON for static/quiz.js, and the HTML
hooks that put a quiz, a module test or the progress table in a page.

The browser cannot run coursekit, so every text and number a question needs is computed here by the
engine the JupyterLab widget uses (coursekit.quiz.engine.instantiate): a parameterized item is
exported as VARIANTS fixed variants (seeds 0..VARIANTS-1), and a choice item as VARIANTS option
orders, of which quiz.js picks one per browser learner and attempt. Verdicts are decided in the
browser by static/quiz-engine.js, a port of numbers.py and engine.grade, handing each item to its type's
browser code (coursekit/quiz/items/<type>/site.js, assembled here into TYPES_SCRIPT and looked up in
static/quiz-types.js's table); tests/app/site/test_site_quiz_parity.py holds them to the same answers, feedback
and messages for every item.
"""
from __future__ import annotations

import html
import json
import shutil
from pathlib import Path

from coursekit.outline import load_outline
from coursekit.progress_report import course_outline, lesson_exercises
from coursekit.quiz.bank import MODULE_TEST_SHOW, Bank, Item, pool
from coursekit.quiz.engine import Question, instantiate, key_text
from coursekit.quiz.items import item_type, site_scripts

from .progress_validator import write_validator

VARIANTS = 8
STATIC = Path(__file__).parent / "static"
# made at build time: quiz-item-types.js (every item type's site.js) and progress-validator.js (progress_validator.py)
ASSETS = ("quiz-types.js", "quiz-engine.js", "progress-format.js", "progress.js", "progress-store.js", "quiz.js",
          "quiz.css")
TYPES_SCRIPT = "quiz-item-types.js"
# Appended to the generated conf.py: quiz.js and its style on every page (they do nothing on a page
# without a quiz, except the start page's progress table).
CONF_LINES = '''
html_static_path = ["_static"]
html_js_files = ["quiz-types.js", "quiz-engine.js", "quiz-item-types.js", "progress-validator.js", "progress-format.js",
                 "progress.js", "progress-store.js", "quiz.js"]
html_css_files = ["quiz.css"]
'''


def variant_seeds(item: Item) -> list[int]:
    """One seed when every seed gives the same question (a fixed numeric item, authored order)."""
    return item_type(item.type).site_seeds(item, VARIANTS)


def variant(q: Question) -> dict:
    """One instantiated question, with the key text a submitted module test shows."""
    return {"seed": q.seed, "stem": q.stem, "explanation": q.explanation, "key": key_text(q),
            **item_type(q.type).export_variant(q)}


def export_item(item: Item) -> dict:
    return {"id": item.id, "type": item.type, "variants": [variant(instantiate(item, s)) for s in variant_seeds(item)],
            **item_type(item.type).export_item(item)}


def export_bank(bank: Bank, banks: dict[str, Bank]) -> dict:
    """Everything quiz.js needs for one lesson quiz or module test (its whole pool, with variants); its
    former ids too, so a browser's attempts recorded before a rename still count."""
    items = pool(bank, banks)
    return {"id": bank.id, "formerly": list(bank.formerly), "title": bank.title, "module": bank.module,
            "kind": bank.kind, "show": MODULE_TEST_SHOW if bank.kind == "module-test" else bank.show,
            "pass_mark": bank.pass_mark,
            "pool": [it.id for it in items], "items": [export_item(it) for it in items]}


def _json_script(data, cls: str) -> str:
    """JSON inside a <script> element: '<' escaped so no text in a bank can close the element."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")
    return f'<script type="application/json" class="{cls}">{text}</script>'


def quiz_html(bank: Bank, banks: dict[str, Bank]) -> str:
    """The block a page holds for a quiz: a container quiz.js fills, the bank's data, and a note for
    readers without JavaScript. One line per element: a blank line would end Markdown's HTML block."""
    what = "module test" if bank.kind == "module-test" else "quiz"
    # mathjax_ignore: a bank's prices ("$0.002 ... $730") are text, never LaTeX
    return (f'<div class="course-site-quiz tex2jax_ignore mathjax_ignore" data-bank="{html.escape(bank.id)}">\n'
            f'{_json_script(export_bank(bank, banks), "course-quiz-data")}\n'
            f'<noscript>This {what} needs JavaScript in the browser.</noscript>\n</div>')


def outline(root: Path) -> list[dict]:
    """The course's modules and steps (the same outline `course progress` reports on), with each page's
    address in the site."""
    return [{"title": title, "steps": [{"kind": s.kind, "key": s.key, "title": s.title, "path": s.path,
                                        "href": s.path.rsplit(".", 1)[0] + ".html",
                                        **({"exercises": lesson_exercises(s.key)} if s.kind == "lesson" else {})}
                                       for s in steps]}
            for title, steps in course_outline(root)]


def lab_modules(root: Path) -> dict[str, str]:
    """Each lab's module, as the outline lists it (progress.lab_module asks the same): an imported lab
    record without one is filed under it."""
    return {lab.id: module.id for module in load_outline(root) for lab in module.labs}


def progress_html(root: Path, module: str = "") -> str:
    """The progress table quiz.js fills from this browser's store: the whole course on the start page,
    one module (its id, e.g. "m1") on a module test's page."""
    data = [m for m in outline(root) if not module or any(s["key"] == module for s in m["steps"])]
    return (f'<div class="course-site-progress tex2jax_ignore mathjax_ignore" data-module="{html.escape(module)}">\n'
            f'{_json_script(data, "course-outline-data")}\n'
            f'{_json_script(lab_modules(root), "course-lab-modules")}\n'
            '<noscript>Your progress is kept in this browser and needs JavaScript.</noscript>\n</div>')


def types_script() -> str:
    """Every registered item type's browser code, in the registry's order (a type's own script after
    what it builds on), for quiz-types.js's table."""
    root = Path(__file__).resolve().parents[3]

    def name(path: Path) -> str:
        path = path.resolve()
        return path.relative_to(root).as_posix() if path.is_relative_to(root) else path.name

    return "".join(f"/* --- {name(path)} --- */\n{path.read_text(encoding='utf-8')}\n" for path in site_scripts())


def write_types_script(static_dir: Path) -> Path:
    target, text = static_dir / TYPES_SCRIPT, types_script()
    if not target.exists() or target.read_text(encoding="utf-8") != text:
        target.write_text(text, encoding="utf-8")
    return target


def copy_assets(static_dir: Path) -> None:
    """quiz.js and its parts into the Sphinx source's _static (only when changed: Sphinx watches times),
    with the item types' scripts assembled and the progress file's validator compiled from its schema."""
    static_dir.mkdir(parents=True, exist_ok=True)
    write_types_script(static_dir)
    write_validator(static_dir)
    for name in ASSETS:
        target = static_dir / name
        text = (STATIC / name).read_bytes()
        if not target.exists() or target.read_bytes() != text:
            shutil.copyfile(STATIC / name, target)
