"""The grading child's stand-ins for the course's reference code (autograder/sandbox/standins.py): what they
replace and keep, and the in-memory replacement of functions imported before the fork."""
from __future__ import annotations

import functools
import importlib.util
import os
import sys
import textwrap
from pathlib import Path

import pytest

from autograder.sandbox import standins
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


def test_setup_uses_names_forbidden_course_code_that_exists():
    """`autograder validate` refuses a setup_uses entry that keeps nothing real; every lab's are sound."""
    from dataclasses import replace

    from autograder.author.spec_checks import setup_uses_problems

    labs = sorted(p.parent.name for p in standins.COURSEKIT.parent.glob("solutions/*/spec.py"))
    assert len(labs) >= 5, labs
    for lab in labs:
        assert setup_uses_problems(load_spec(lab)) == [], lab
    wrong = replace(load_spec("lab1-roofline"),
                    setup_uses=("coursekit.calc.roofline.no_such", "coursekit.hardware.Chip", "torch.matmul"))
    problems = setup_uses_problems(wrong)
    assert len(problems) == 3
    assert "roofline.py defines no no_such" in problems[0] and "not forbidden by any task" in problems[1]
    assert "names no function or class of the course's code" in problems[2]


SPEC_MODULE = '''
def _shape(case):
    return case * 2

def prepare(case):
    return (_shape(case),), {}

def reference(x):
    return x + 1

def _expected(x):
    return reference(x)
'''


def test_the_specs_own_functions_go_but_what_prepare_needs(tmp_path):
    """The worker loaded the spec before forking: its references and helpers are replaced in the child,
    its prepare step (and the helpers it calls) stays."""
    from types import SimpleNamespace

    path = tmp_path / "spec.py"
    path.write_text(SPEC_MODULE)
    spec_of = importlib.util.spec_from_file_location("autograder_spec_fake", path)
    module = importlib.util.module_from_spec(spec_of)
    spec_of.loader.exec_module(module)
    task = SimpleNamespace(prepare=module.prepare, encode=repr, reference=module.reference, hidden=None)
    spec = SimpleNamespace(origin=str(path), lab_id="fake", tasks=(task,))
    standins.replace_in_memory({}, spec)
    assert module.prepare(2) == ((4,), {})
    for call in (lambda: module.reference(1), lambda: module._expected(1)):
        with pytest.raises(NotImplementedError, match="the spec of fake.* is not available while grading"):
            call()


IMPORT_ALL = '''
import importlib, pkgutil, sys
sys.path.insert(0, sys.argv[1])
import coursekit
assert coursekit.__file__.startswith(sys.argv[1]), coursekit.__file__
failed = []
for info in pkgutil.walk_packages(coursekit.__path__, "coursekit."):
    if info.name.startswith("coursekit.app"):        # the course command and hub config: no notebook imports them
        continue
    try:
        importlib.import_module(info.name)
    except Exception as error:
        failed.append(f"{info.name}: {error!r}")
print("\\n".join(failed))
'''


@pytest.mark.slow
def test_every_course_module_still_imports_with_the_stand_ins(tmp_path):
    """A stand-in keeps module-level data, computed values included: no course module fails to import
    because a function it calls at import time is a stand-in (Lab 2's setup imports cluster_plan, whose
    GPU_MTBF_HOURS calls training_run)."""
    import shutil
    import subprocess

    copy = tmp_path / "coursekit"
    shutil.copytree(standins.COURSEKIT, copy, ignore=shutil.ignore_patterns("__pycache__", "site", "node_modules"))
    files = standins.plan(("coursekit.calc", "coursekit.nn"))      # more than any lab forbids
    for path, entry in files.items():
        (copy / Path(path).relative_to(standins.COURSEKIT)).write_text(standins.stand_in_source(path, entry))
    run = subprocess.run([sys.executable, "-c", IMPORT_ALL, str(tmp_path)], capture_output=True, text=True,
                         timeout=600, env={**os.environ, "MPLBACKEND": "Agg"}, cwd=tmp_path)
    assert run.returncode == 0 and run.stdout.strip() == "", run.stdout + run.stderr[-2000:]


def test_a_reach_is_kept_when_the_call_raises_and_the_graders_instruments_do_not_count():
    """While grading, the course's code only raises: what the call reached before that is still reported.
    The harness's own os.environ (code of `autograder`, which the default rule forbids) is not a reach."""
    from coursekit.checks.cases import DEFAULT_FORBIDDEN
    from coursekit.checks.reach import call_watched

    fake = {"__name__": "coursekit.calc.fake"}
    exec("def ridge(x):\n    raise NotImplementedError('stand-in')\n", fake)
    seen: list[str] = []
    with pytest.raises(NotImplementedError):
        call_watched(lambda x: fake["ridge"](x), (1,), {}, DEFAULT_FORBIDDEN, seen)
    assert seen == ["coursekit.calc.fake.ridge"]
    instrument = {"__name__": "autograder.sandbox.harness"}
    exec("def lookup(key):\n    return key.upper()\n", instrument)
    assert call_watched(instrument["lookup"], ("x",), {}, DEFAULT_FORBIDDEN)[1] == "autograder.sandbox.harness.lookup"
    assert call_watched(instrument["lookup"], ("x",), {}, DEFAULT_FORBIDDEN, None,
                        ("autograder.sandbox.harness",)) == ("X", None)
