"""The course's quiz banks, loaded once, for the tests that recompute a module's numbers
(tests/content/mN/test_mN_banks.py)."""
from __future__ import annotations

from coursekit.quiz.bank import load_all_banks
from paths import ROOT

BANKS = load_all_banks(ROOT / "quizzes")


def bank_item(item_id: str):
    """The item with this id, in whichever bank holds it (item ids are unique across the banks)."""
    return next(i for b in BANKS.values() for i in b.items if i.id == item_id)
