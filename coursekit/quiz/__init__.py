"""Quizzes: question banks (quizzes/README.md), their self-test, and the widgets that show them.

    from coursekit.quiz import show_quiz, show_module_test
    show_quiz("m1-l1")            # a lesson quiz: instant feedback, retry, score
    show_module_test("m1")        # 15 questions for this learner, submitted as a whole

Layers: bank (schema, loading) -> engine (seeds, variants, scoring) -> selftest (prove each item)
-> widgets/show (ipywidgets); the `course quiz` command is coursekit/app/quiz_cli.py. What differs per
item type is one folder per type in items/ (its model, widget, graded-notebook view and browser code),
which each layer calls through the registry. Graded quizzes are the instructor's:
autograder/quiz/.

The names below load on first use (PEP 562): every `course` command registers `course quiz` through
`coursekit.app.quiz_cli`, and importing the widgets (ipywidgets) there would slow them all, `course check`
included.
"""
from __future__ import annotations

import importlib

_FROM = {"Bank": "bank", "BankError": "bank", "Item": "bank", "Problem": "bank", "load_all_banks": "bank",
         "load_bank": "bank", "check_banks": "selftest", "show_module_test": "show", "show_quiz": "show"}

__all__ = sorted(_FROM)


def __getattr__(name: str):
    if name not in _FROM:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{_FROM[name]}"), name)
    globals()[name] = value           # found once; later lookups skip this hook
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_FROM))
