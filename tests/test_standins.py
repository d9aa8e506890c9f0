"""The grading child's stand-ins for the course's reference code (autograder/judge/standins.py): what they
replace and keep, and the in-memory replacement of functions imported before the fork."""
from __future__ import annotations

import functools
import importlib.util
import textwrap

import pytest

from autograder.judge import standins
from autograder.spec import load_spec

MODULE = '''
"""The secret formula: peak / bandwidth."""
import functools

SCALE = 3

def ridge(peak, bandwidth):
    """ridge = peak / bandwidth"""
    return peak / bandwidth * SCALE // SCALE

@functools.lru_cache(maxsize=None)
def cached(x):
    return x * SCALE

def make_adder(n):
    def add(x):
        return x + n
    return add

class Base:
    def go(self):
        return 1

class Child(Base):
    def go(self):
        return super().go() + SCALE

class Kept:
    def go(self):
        return "kept"
'''


def test_the_stand_in_source_keeps_data_and_loses_every_forbidden_body():
    path = str(standins.COURSEKIT / "calc" / "roofline.py")
    files = standins.plan(("coursekit.calc",))
    source = standins.stand_in_source(path, files[path])
    namespace: dict = {}
    exec(compile(source, "stand-in.py", "exec"), namespace)
    assert namespace["COMPUTE_BOUND"] == "compute-bound"            # module data stays
    with pytest.raises(NotImplementedError, match="coursekit.calc.roofline.ridge_point is not available while grading"):
        namespace["ridge_point"](1e15, 2e12)
    assert "peak_flops / bandwidth" not in source and "Williams" not in source   # no body, no docstring


def test_a_named_function_or_a_kept_class_stays_real():
    files = standins.plan(("coursekit.nn.decoder.greedy_generate", "coursekit.nn.moe"),
                          keep=("coursekit.nn.moe.MoEConfig", "coursekit.nn.moe.build_moe"))
    decoder = next(v for k, v in files.items() if k.endswith("nn/decoder.py"))
    moe = next(v for k, v in files.items() if k.endswith("nn/moe.py"))
    assert standins.replaced(decoder, "greedy_generate") and not standins.replaced(decoder, "build_model")
    assert standins.replaced(moe, "MoELayer.forward") and standins.replaced(moe, "expert_load")
    assert not standins.replaced(moe, "MoEConfig.__post_init__") and not standins.replaced(moe, "build_moe")
    assert standins.plan(("autograder", "torch.nn.functional")) == {}    # the grader, third-party code: watch only


def test_functions_imported_before_the_fork_are_replaced_in_memory(tmp_path):
    path = tmp_path / "reference_mod.py"
    path.write_text(textwrap.dedent(MODULE))
    spec = importlib.util.spec_from_file_location("reference_mod", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    adder, held = module.make_adder(2), module.ridge               # closures and references made earlier
    partial = functools.partial(module.ridge, 8)
    entry = {"module": "coursekit.calc.fake", "names": [""], "keep": ["Kept"]}
    assert standins.replace_in_memory({str(path.resolve()): entry}) >= 5
    for call in (lambda: held(8, 2), lambda: partial(2), lambda: module.cached(2), lambda: adder(1),
                 lambda: module.Child().go()):
        with pytest.raises(NotImplementedError, match="coursekit.calc.fake.* is not available while grading"):
            call()
    assert module.Kept().go() == "kept" and module.SCALE == 3
    assert held.__code__.co_qualname == "ridge"                        # the watch still names what was reached


def test_every_lab_names_real_course_code_it_keeps():
    """A lab's setup_uses must name forbidden course code that exists (autograder validate checks it too)."""
    from autograder.author.validate import setup_uses_problems

    for lab in ("lab1-roofline", "lab3-kv-cache", "lab5-moe"):
        assert setup_uses_problems(load_spec(lab)) == [], lab
