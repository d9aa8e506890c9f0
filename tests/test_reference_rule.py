"""The reference rule holds structurally (docs/SANDBOX.md): the grading child has no copy of the course's
reference code for a graded task, so switching the call watch off from inside the student's process, or
computing somewhere it cannot see, finds only a stand-in that raises. Each route of issue 36 (and the
pasted source read at run time) is graded for real through the engine on Lab 1 and scores 0 for
ridge_point; the lab's other tasks keep their marks. The earlier routes (a thread, a pool, another module
name, the watch rebound, the hook lifted) are in tests/test_autograder_adversarial_batch.py."""
from __future__ import annotations

import os
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
UNAVAILABLE = "not available while grading"

ROUTES = {
    "the watch's switch turned off through its closure": """
import sys
from coursekit.calc import roofline

def ridge_point(peak_flops, bandwidth):
    for cell in sys.getprofile().__closure__ or ():
        if cell.cell_contents == [True]:
            cell.cell_contents[0] = False
    return roofline.ridge_point(peak_flops, bandwidth)
""",
    "the forbidden tuple emptied through the closure": """
import sys
from coursekit.calc import roofline

def ridge_point(peak_flops, bandwidth):
    for cell in sys.getprofile().__closure__ or ():
        value = cell.cell_contents
        if isinstance(value, tuple) and value and all(isinstance(v, str) for v in value):
            cell.cell_contents = ()
    return roofline.ridge_point(peak_flops, bandwidth)
""",
    "the hook cleared by ctypes for the call": """
import ctypes, sys
from coursekit.calc import roofline

def ridge_point(peak_flops, bandwidth):
    hook = sys.getprofile()
    ctypes.pythonapi.PyEval_SetProfile(None, None)
    try:
        return roofline.ridge_point(peak_flops, bandwidth)
    finally:
        sys.setprofile(hook)
""",
    "the course code renamed <module>": """
from coursekit.calc import roofline

for function in list(vars(roofline).values()):
    if getattr(function, '__module__', None) == roofline.__name__ and hasattr(function, '__code__'):
        function.__code__ = function.__code__.replace(co_qualname='<module>')

def ridge_point(peak_flops, bandwidth):
    return roofline.ridge_point(peak_flops, bandwidth)
""",
    "a thread started earlier, on request through two Events": """
import threading
from coursekit.calc import roofline

_asked, _done, _box = threading.Event(), threading.Event(), {}

def _serve():
    while True:
        _asked.wait()
        _asked.clear()
        try:
            _box['out'] = roofline.ridge_point(*_box['args'])
        except Exception as error:
            _box['out'] = error
        _done.set()

threading.Thread(target=_serve, daemon=True).start()

def ridge_point(peak_flops, bandwidth):
    _box['args'] = (peak_flops, bandwidth)
    _asked.set()
    _done.wait()
    _done.clear()
    if isinstance(_box['out'], Exception):
        raise _box['out']
    return _box['out']
""",
    "a python -c server started earlier": """
import os, subprocess, sys
import coursekit

_server = subprocess.Popen([sys.executable, '-c', '''
import sys
sys.path.insert(0, %r)
from coursekit.calc import roofline
for line in sys.stdin:
    try:
        print(repr(roofline.ridge_point(*map(float, line.split()))), flush=True)
    except Exception as error:
        print('error', error, flush=True)
''' % os.path.dirname(os.path.dirname(coursekit.__file__))], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

def ridge_point(peak_flops, bandwidth):
    _server.stdin.write(f'{peak_flops!r} {bandwidth!r}\\n')
    _server.stdin.flush()
    line = _server.stdout.readline()
    if not line or line.startswith('error'):
        raise RuntimeError(line.strip() or 'the server is gone')
    return float(line)
""",
    "the pasted source read at run time": """
from coursekit.calc import roofline

_mine = {'__name__': 'my_roofline'}
with open(roofline.__file__) as handle:
    exec(compile(handle.read(), 'my_roofline.py', 'exec'), _mine)

def ridge_point(peak_flops, bandwidth):
    return _mine['ridge_point'](peak_flops, bandwidth)
""",
    "the source through inspect": """
import inspect
from coursekit.calc import roofline

_mine = {'__name__': 'my_roofline'}
exec(compile(inspect.getsource(roofline), 'my_roofline.py', 'exec'), _mine)

def ridge_point(peak_flops, bandwidth):
    return _mine['ridge_point'](peak_flops, bandwidth)
""",
    "the compiled copy in __pycache__": """
import glob, marshal, os
from coursekit.calc import roofline

_mine = {'__name__': 'my_roofline'}
for path in glob.glob(os.path.join(os.path.dirname(roofline.__file__), '__pycache__', 'roofline.*.pyc')):
    with open(path, 'rb') as handle:
        data = handle.read()
    if len(data) > 16:
        exec(marshal.loads(data[16:]), _mine)

def ridge_point(peak_flops, bandwidth):
    return _mine['ridge_point'](peak_flops, bandwidth)
""",
}
LOCAL_ONLY = "sandbox: the course's reference code is replaced in the grading process only"


def _notebook(folder: Path, name: str, source: str) -> Path:
    nb = nbformat.read(ROOT / "solutions" / "lab1-roofline" / "lab1-roofline.ipynb", as_version=4)
    for cell in nb.cells:
        if (cell.metadata.get("nbgrader") or {}).get("grade_id") == "impl_ridge":
            cell.source = source
    path = folder / name / "lab1-roofline.ipynb"
    path.parent.mkdir(parents=True)
    nbformat.write(nb, path)
    return path


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """Every route graded by one pool, as a batch would grade them."""
    from autograder.judge.engine import GradingPool
    from autograder.spec import load_spec

    folder = tmp_path_factory.mktemp("routes")
    spec = load_spec("lab1-roofline")
    with GradingPool(2) as pool:
        futures = {how: pool.submit(_notebook(folder, f"route{i}", source), spec, student_id=f"rex{i}",
                                    secret=b"reference-rule") for i, (how, source) in enumerate(ROUTES.items())}
        return {how: future.result() for how, future in futures.items()}


@pytest.mark.slow
@pytest.mark.skipif(os.geteuid() != 0, reason="the allowlist root needs root (see docs/SANDBOX.md)")
@pytest.mark.parametrize("how", list(ROUTES))
def test_no_route_finds_the_course_reference(graded, how):
    result = graded[how]
    tasks = {t.grade_id: t for t in result.tasks}
    assert result.status == "graded", result.reason
    ridge = tasks["test_ridge"]
    assert ridge.points == 0, ridge.message
    # the function got the stand-in (or, from the compiled copy, nothing at all): never the reference
    assert UNAVAILABLE in ridge.message or "KeyError: 'ridge_point'" in ridge.message, ridge.message
    assert all(t.passed for g, t in tasks.items() if g != "test_ridge"), [t.message for t in result.tasks]
    assert LOCAL_ONLY not in " ".join(result.flags), result.flags


@pytest.mark.slow
def test_without_the_allowlist_the_reference_is_still_gone_from_the_process_and_that_is_flagged(tmp_path):
    """Degraded mode (no namespaces, as a non-root grader runs): what the worker imported before the fork
    is replaced in memory, so the watch's closure route still scores 0; the result says the files stay."""
    from autograder.judge.engine import grade_submission
    from autograder.sandbox.policy import Limits
    from autograder.spec import load_spec

    how = "the watch's switch turned off through its closure"
    path = _notebook(tmp_path, "degraded", ROUTES[how])
    result = grade_submission(path, load_spec("lab1-roofline"), student_id="rex", secret=b"reference-rule",
                              limits=Limits(isolate=False))
    ridge = {t.grade_id: t for t in result.tasks}["test_ridge"]
    assert result.status == "graded" and ridge.points == 0 and UNAVAILABLE in ridge.message, ridge.message
    assert any(f.startswith(LOCAL_ONLY) for f in result.flags), result.flags
