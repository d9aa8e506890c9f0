"""The autograder tests' toy lab: its fixture folder and its catalogue of submissions (honest, wrong and
hostile), shared by the engine and adversarial suites."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

FIXTURES = Path(__file__).parent / "fixtures" / "autograder"


def _load():
    """submissions.py, under a name no other fixture folder's module can shadow."""
    name = "autograder_toy_lab_submissions"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, FIXTURES / "submissions.py")
        sys.modules[name] = module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    return sys.modules[name]


catalog = _load()
