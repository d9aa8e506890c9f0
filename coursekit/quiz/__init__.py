"""Quizzes: question banks (quizzes/README.md), their self-test, and the widgets that show them.

    from coursekit.quiz import show_quiz, show_module_test
    show_quiz("m1-l1")            # a lesson quiz: instant feedback, retry, score
    show_module_test("m1")        # 15 questions for this learner, submitted as a whole

Layers: bank (schema, loading) -> engine (seeds, variants, scoring) -> selftest (prove each item)
-> widgets/show (ipywidgets) ; cli. Graded quizzes are the instructor's: autograder/quiz/.
"""
from .bank import Bank, BankError, Item, Problem, load_all_banks, load_bank
from .selftest import check_banks
from .show import show_module_test, show_quiz

__all__ = ["Bank", "BankError", "Item", "Problem", "check_banks", "load_all_banks", "load_bank",
           "show_module_test", "show_quiz"]
