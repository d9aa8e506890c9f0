"""Marks that several test files share, written once so their reasons read the same."""
import os

import pytest

needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="the full sandbox needs root (see docs/SANDBOX.md)")

# Labs whose trusted reference takes about a second a case (Lab 6 decodes every request alone): a test
# over their cases takes seconds, so it is slow for them and stays in the quick tier for the others.
SLOW_REFERENCE_LABS = frozenset({"lab6-serving"})


def per_lab(values: list) -> list:
    """`values` (lab ids, or tuples that start with one) as parameters, slow where the lab is."""
    def lab(value):
        return value[0] if isinstance(value, tuple) else value

    return [pytest.param(*(value if isinstance(value, tuple) else (value,)),
                         marks=[pytest.mark.slow] if lab(value) in SLOW_REFERENCE_LABS else [])
            for value in values]
