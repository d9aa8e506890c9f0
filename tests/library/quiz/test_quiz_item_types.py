"""Each quiz item type is one folder (coursekit/quiz/items/<type>/): its model, widget, graded-notebook
view and browser code. No caller, in Python or in the website's JavaScript, branches on a type's name,
and a type defined here (three small classes and a script) works everywhere a built-in one does, the
browser included (issues 27 and 41)."""
from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import pytest

from autograder.quiz.assignment import answer_hint, question_markdown
from autograder.quiz.scoring import choice_label, score_answer
from coursekit.quiz.bank import BankError, Option, load_bank, read_bank
from coursekit.quiz.engine import Outcome, Question, build_quiz, grade, instantiate, key_text, render
from coursekit.quiz.items import ITEM_TYPES, ItemModel, NotebookView, WidgetView, register, site_scripts
from coursekit.quiz.selftest import check_banks
from coursekit.app.site.quizzes import export_item, types_script
from paths import ROOT
from site_js import node

REPO = ROOT
ITEMS = REPO / "coursekit" / "quiz" / "items"
STATIC = REPO / "coursekit" / "app" / "site" / "static"
BUILT_IN = {"single", "multi", "numeric", "param"}
NAMES = frozenset(ITEM_TYPES)    # every registered type's name, a future built-in one included


# --- 1. no type-name branching outside coursekit/quiz/items -----------------------------------------

def _names_in(node: ast.AST) -> set[str]:
    """The type names a comparison operand spells: a string, or a tuple/list/set of strings."""
    parts = node.elts if isinstance(node, (ast.Tuple, ast.List, ast.Set)) else [node]
    return {p.value for p in parts if isinstance(p, ast.Constant) and p.value in NAMES}


def type_branches(source: str) -> list[tuple[int, str]]:
    """(line, name) of each `==`/`!=`/`in`/`not in` comparison or `case` pattern against a type name."""
    found = []
    for tree_node in ast.walk(ast.parse(source)):
        if isinstance(tree_node, ast.Compare):
            found += [(tree_node.lineno, n) for operand in (tree_node.left, *tree_node.comparators)
                      for n in _names_in(operand)]
        elif isinstance(tree_node, ast.MatchValue):
            found += [(tree_node.lineno, n) for n in _names_in(tree_node.value)]
    return found


def test_the_scan_finds_a_type_branch():
    assert type_branches("if q.type == 'single':\n    pass") == [(1, "single")]
    assert {n for _, n in type_branches("x = item.type in ('numeric', 'param')")} == {"numeric", "param"}
    assert type_branches("match kind:\n    case 'multi':\n        pass") == [(2, "multi")]
    assert type_branches("units = {'param': 'parameter'}['param'.strip()]") == []


def test_built_in_types_are_the_registered_ones():
    assert set(ITEM_TYPES) >= BUILT_IN
    assert list(ITEM_TYPES)[:4] == ["single", "multi", "numeric", "param"]   # the order authors read
    for name in BUILT_IN:
        assert ITEM_TYPES[name].name == name and (ITEMS / name / "site.js") in ITEM_TYPES[name].scripts
        assert (ITEMS / name / "model.py").is_file() and (ITEMS / name / "__init__.py").is_file()


def test_the_site_assembles_every_types_browser_code_in_the_registrys_order():
    scripts = site_scripts()
    assert scripts[0] == ITEMS / "choice.js" and scripts.index(ITEMS / "numeric" / "site.js") < scripts.index(
        ITEMS / "param" / "site.js")                              # param's builds on numeric's
    assert len(scripts) == len(set(scripts)) == 5
    assembled = types_script()
    assert all(p.read_text(encoding="utf-8") in assembled for p in scripts)


JS_TYPE_NAME = re.compile(r"""\.type\s*[!=]==?\s*["'](\w+)["']|["'](\w+)["']\s*[!=]==?\s*\w+\.type\b""")


def test_no_type_name_branches_in_the_websites_code():
    """quiz-engine.js and quiz.js look a type up in quiz-types.js's table, as Python does in ITEM_TYPES."""
    def names(line: str) -> set[str]:
        return {n for match in JS_TYPE_NAME.finditer(line) for n in match.groups() if n in NAMES}

    found = [f"{p.name}:{n}: {line.strip()}" for p in sorted(STATIC.glob("*.js"))
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if names(line)]
    assert not found, "\n".join(found)
    assert names('if (item.type === "single") {') == {"single"} and names("'multi' == view.type") == {"multi"}
    assert not names('event.target.type === "checkbox"')


def test_no_type_name_branches_outside_the_item_classes():
    files = [p for top in ("coursekit", "autograder") for p in (REPO / top).rglob("*.py")
             if ITEMS not in p.parents and ".ipynb_checkpoints" not in p.parts]
    assert len(files) > 50
    found = [f"{p.relative_to(REPO)}:{line}: compares with {name!r}" for p in files
             for line, name in type_branches(p.read_text(encoding="utf-8"))]
    assert not found, "type-specific code belongs in the item's class (coursekit/quiz/items):\n" + "\n".join(found)


def test_coursekit_quiz_items_never_import_the_grader():
    paths = sorted(ITEMS.rglob("*.py"))
    assert len(paths) > 10
    for path in paths:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        modules = [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
        modules += [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
        assert not [m for m in modules if m.split(".")[0] == "autograder"], path


# --- 2. a new type is one folder: a model, two views and its browser code -------------------------------

class TrueFalse(ItemModel):
    """A statement the learner marks true or false; stored as the two options True and False."""
    name = "truefalse"
    keys = frozenset({"correct", "why_true", "why_false"})

    def read(self, r, data: dict, item_id: str) -> dict[str, Any]:
        correct = data.get("correct")
        if not isinstance(correct, bool):
            r.problem(item_id, f"a truefalse item needs 'correct: true' or 'correct: false', got {correct!r}")
        return {"options": (Option("True", correct is True, r.text(data, "why_true", item_id)),
                            Option("False", correct is False, r.text(data, "why_false", item_id)))}

    def fill(self, q: Question, names: dict) -> None:
        q.option_texts = [o.text for o in q.item.options]
        q.option_feedback = [render(o.feedback, names, what="feedback") for o in q.item.options]
        q.order = [0, 1]

    def correct_response(self, q: Question) -> bool:
        return q.item.options[0].correct

    def grade(self, q: Question, response: Any) -> Outcome:
        if not isinstance(response, bool):
            raise ValueError(f"{q.id}: answer True or False")
        index = 0 if response else 1
        return Outcome(q.item.options[index].correct, q.option_feedback[index], q.explanation, response)

    def key_text(self, q: Question) -> str:
        return str(self.correct_response(q))

    def selftest(self, q: Question) -> list[str]:
        key = self.correct_response(q)
        return [] if self.grade(q, key).correct and not self.grade(q, not key).correct else ["key not decisive"]

    def site_seeds(self, item, variants: int) -> list[int]:
        return [0]

    def export_variant(self, q: Question) -> dict:
        return {"answer": self.correct_response(q), "feedback": dict(zip(("true", "false"), q.option_feedback))}


class TrueFalseWidget(WidgetView):
    def build(self, view) -> list:
        import ipywidgets as widgets

        view.input = widgets.RadioButtons(options=[("True", True), ("False", False)], value=None)
        return [view.input]

    def response(self, view) -> Any:
        return view.input.value

    def set_response(self, view, response: Any) -> None:
        view.input.value = response


class TrueFalseNotebook(NotebookView):
    def markdown(self, q: Question) -> list[str]:
        return ["*(true or false)*"]

    def answer_hint(self, q: Question) -> str:
        return "True or False"

    def read_written(self, q: Question, answer: Any) -> bool:
        words = {"true": True, "t": True, "false": False, "f": False}
        if isinstance(answer, bool):
            return answer
        if isinstance(answer, str) and answer.strip().lower() in words:
            return words[answer.strip().lower()]
        raise ValueError(f"expected True or False, got {str(answer)[:40]!r}")

    def choice_label(self, q: Question, response: Any) -> list[str]:
        return [str(response)]


SITE_JS = """(function (T) {
  T.register("truefalse", {
    emptyNote: "Choose true or false first.",
    grade(item, variant, response) {
      const right = response === variant.answer;
      return { correct: right, feedback: variant.feedback[response ? "true" : "false"], explanation: variant.explanation,
        response };
    },
    render(view, id, ui) { view.inputs = []; },
    response(view) { return null; },
    readAs() { return ""; },
    setResponse(view, response) {},
  });
})(globalThis.CourseQuizTypes);
"""


@pytest.fixture
def truefalse(tmp_path):
    script = tmp_path / "truefalse" / "site.js"
    script.parent.mkdir()
    script.write_text(SITE_JS, encoding="utf-8")
    register(TrueFalse, TrueFalseWidget, TrueFalseNotebook, [script])
    yield ITEM_TYPES["truefalse"]
    ITEM_TYPES.remove("truefalse")


def _bank(folder: Path, items: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "tf.yaml"
    path.write_text("id: m8-tf\ntitle: True or false\nmodule: m8\nkind: lesson-quiz\nshow: 3\nitems:\n" + items,
                    encoding="utf-8")
    return path


def _tf_items(n: int, **override) -> str:
    out = ""
    for k in range(n):
        fields = {"correct": "true" if k % 2 == 0 else "false", **(override if k == 0 else {})}
        out += (f"  - id: m8-tf-{k}\n    type: truefalse\n    stem: A {{gb:.0f}} GB model is statement {k}.\n"
                f"    correct: {fields['correct']}\n    why_true: Because {k} is even.\n"
                f"    why_false: Because {k} is odd.\n    explanation: Parity of {k}.\n    source: test\n"
                "    values:\n      gb: {fn: \"coursekit.calc.memory:weight_bytes\", "
                "args: {n_params: 7.0e9, bytes_per_param: 2}, scale: 1.0e-9}\n")
    return out


def test_an_unregistered_type_is_refused_naming_the_known_ones(tmp_path):
    _, problems = read_bank(_bank(tmp_path, _tf_items(6)))
    assert any("'type' must be one of single, multi, numeric, param, got 'truefalse'" in p.message
               for p in problems)


def test_a_type_missing_a_method_cannot_register():
    class Half(ItemModel):
        name = "half"

        def read(self, r, data, item_id):
            return {}

    with pytest.raises(TypeError, match="abstract"):
        register(Half, TrueFalseWidget, TrueFalseNotebook, [ITEMS / "single" / "site.js"])
    assert "half" not in ITEM_TYPES


def test_a_type_without_its_browser_code_cannot_register(tmp_path):
    with pytest.raises(ValueError, match="truefalse.*browser code.*site.js"):
        register(TrueFalse, TrueFalseWidget, TrueFalseNotebook, [tmp_path / "site.js"])
    assert "truefalse" not in ITEM_TYPES


def test_a_new_type_in_one_class_validates_draws_grades_and_is_scored(truefalse, tmp_path):
    path = _bank(tmp_path / "banks", _tf_items(6))
    bank = load_bank(path)
    assert [it.type for it in bank.items] == ["truefalse"] * 6
    assert check_banks(tmp_path / "banks") == []                    # schema and self-test pass

    broken = _bank(tmp_path / "broken", _tf_items(6, correct='"yes"'))
    with pytest.raises(BankError, match=r"tf.yaml: m8-tf-0: a truefalse item needs 'correct: true'"):
        load_bank(broken)

    questions = build_quiz(bank, list(bank.items), seed=5)
    assert len(questions) == 3 and questions == build_quiz(bank, list(bank.items), seed=5)
    q = instantiate(bank.items[1], seed=0)                           # correct: false
    assert q.stem == "A 14 GB model is statement 1."
    right, wrong = grade(q, False), grade(q, True)
    assert (right.correct, right.feedback) == (True, "Because 1 is odd.")
    assert (wrong.correct, wrong.feedback, wrong.explanation) == (False, "Because 1 is even.", "Parity of 1.")
    assert key_text(q) == "False"

    # the graded quiz: the student's notebook, and the written answer read and scored by the class
    assert question_markdown(2, q).endswith("*(true or false)*") and answer_hint(q) == "True or False"
    assert score_answer(q, "false") == (True, False, "")
    assert score_answer(q, "T")[:2] == (False, True)
    assert score_answer(q, 7) == (False, None, "unreadable answer: expected True or False, got '7'")
    assert choice_label(q, False, "false") == ["False"]

    # the JupyterLab widget and the website export
    from coursekit.quiz.widgets import LessonQuizView

    view = LessonQuizView("TF", [q])
    view.questions[0].set_response(False)
    assert view.check(view.questions[0], view.check_buttons[0]).correct
    assert "Because 1 is odd." in view.questions[0].feedback.value and view.questions[0].input.disabled
    exported = export_item(bank.items[1])
    assert exported["type"] == "truefalse" and exported["variants"][0]["answer"] is False

    # the website: its site.js joins the table of types and the browser's engine dispatches to it
    assert SITE_JS in types_script()
    cases = [[0, 0, "choice", False], [0, 0, "choice", True]]
    got = node({"op": "grade", "items": [exported], "cases": cases})
    assert [(g["correct"], g["feedback"]) for g in got] == [(True, "Because 1 is odd."), (False, "Because 1 is even.")]
