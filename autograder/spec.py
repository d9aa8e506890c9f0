"""The contract between a graded lab and the autograder.

Each lab is one folder, solutions/<lab>/: its solution notebook and `spec.py` exposing `SPEC: LabSpec`
(`autograder new LAB` writes both; docs/AUTHORING.md). Student-side helpers a lab's visible checks need
(prepare, encode, compare) live in coursekit/checks/<lab_with_underscores>.py.
A task is one nbgrader test cell (its `grade_id`) worth `points`; it passes when the student's
function matches the trusted reference on every visible case and on `n_hidden` hidden cases.

Why data, not asserts: the trusted grader must judge *outside* the student's process. The student
process only calls the student's function on the case inputs and returns encoded outputs; the
trusted process computes the reference on the same inputs and compares. The same spec also drives
the visible checks a student runs in the notebook (`coursekit.checks.run_visible`, from the data
`autograder generate` writes) and the hidden
checks inside nbgrader's own kernel (`autograder.judge.hidden.check_task`), so all three agree.

Data flow of one case (all plain data crosses the process boundary):
    case.args/kwargs (JSON-able)  --task.prepare-->  call arguments (tensors, models, ...)
    student_fn(*call_args)        --task.encode--->  JSON-able output (runs in the student process)
    reference(*call_args)         --task.encode--->  JSON-able output (runs in the trusted process)
    task.compare(student, reference) -> None if equal enough, else a teaching message
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable

# The student-safe pieces live in coursekit (students' visible checks use them without the grader);
# specs keep importing them from here.
from coursekit.checks.cases import (DEFAULT_FORBIDDEN, Case, approx, as_number, encode, pick_keys,  # noqa: F401 - re-exported for specs
                                    plain_args)
from coursekit.checks.visible import VisibleTask

REPO_ROOT = Path(__file__).resolve().parent.parent
SPEC_FILE = "spec.py"   # <course root>/solutions/<lab>/spec.py: a lab's spec beside its solution notebook


@dataclass(frozen=True)
class Task:
    grade_id: str                                   # nbgrader grade cell id of the task's test cell
    title: str                                      # "Task (arithmetic intensity)"
    points: float
    function: str                                   # name of the function the student defines
    visible: tuple[Case, ...] = ()
    hidden: Callable[[random.Random], Case] | None = None  # draws one hidden case from a seeded rng
    n_hidden: int = 5
    compare: Callable[[Any, Any], str | None] = field(default_factory=approx)
    prepare: Callable[[Case], tuple[tuple, dict]] = plain_args  # plain-data case -> call args; runs in
                                                               # both processes, must be deterministic
    reference: Callable[..., Any] | None = None     # trusted reference; default: the solution
                                                    # notebook's function named `function`
    encode: Callable[[Any], Any] = encode           # output -> plain data (runs in the student process)
    encode_reference: Callable[[Any], Any] | None = None  # the reference's output -> plain data (trusted
                                                    # process only); None: encode. Lets a lab's encode refuse
                                                    # what only the trusted side may hand in (Lab 6's decode record)
    forbidden: tuple[str, ...] | None = None        # code the graded function may not reach: modules,
                                                    # functions or methods by dotted name; None: DEFAULT_FORBIDDEN
    float64_expected: bool = False                  # visible expectations the reference computes with torch:
                                                    # run it in float64 and store float32 precision, so the
                                                    # committed checks file is the same on every CPU (release/visible_cases.py)
    wrong: tuple[str, ...] = ()                     # wrong-but-plausible answers (source defining `function`):
                                                    # `autograder validate` checks that each one fails

    @property
    def forbids(self) -> tuple[str, ...]:
        return DEFAULT_FORBIDDEN if self.forbidden is None else tuple(self.forbidden)

    def visible_task(self) -> VisibleTask:
        """What a student's visible check of this task needs, and nothing of the hidden side."""
        return VisibleTask(self.grade_id, self.title, self.function, tuple(self.visible), self.prepare,
                           self.encode, self.compare, self.forbids)


@dataclass(frozen=True)
class LabSpec:
    lab_id: str                  # "lab1-roofline": folder under solutions/ and labs/
    notebook: str                # "lab1-roofline.ipynb"
    tasks: tuple[Task, ...]
    solution: str | None = None  # solution notebook; default solutions/<lab_id>/<notebook> in the repo.
                                 # A relative path is taken relative to the spec module's folder.
    origin: str | None = field(default=None, compare=False)  # spec module file, set by load_spec so
                                                             # grading workers can load the same spec
    gpu: bool = False            # `grade --cluster`: send submissions only to Dask workers declaring
                                 # a GPU resource (`dask worker --resources GPU=1`)
    data: tuple[str, ...] = ()   # files students get beside the notebook, relative to the solution's
                                 # folder ("prices.csv", "data/trace.json"): `generate` releases these
                                 # and the notebook, nothing else (not spec.py, not scratch files)
    budget_s: float = 300        # `autograder validate`: the solution notebook, run top to bottom on the
                                 # CPU in quick mode (COURSE_QUICK=1, as grading runs it), takes at most this
    speed: Any = None            # autograder.judge.speed.SpeedSpec: tasks also timed against the course's
                                 # reference engine by the grader (Lab 6; docs/SERVING.md)
    setup_uses: tuple[str, ...] = ()   # forbidden course code (dotted names) the lab's own setup, or a
                                 # task's prepare, needs while grading: kept real in the grading child, where
                                 # the rest of what `forbidden` names is a stand-in that raises (docs/SANDBOX.md)

    def solution_path(self) -> Path:
        if self.solution is None:
            if self.origin and Path(self.origin).name == SPEC_FILE:   # solutions/<lab>/spec.py: beside it
                return Path(self.origin).parent / self.notebook
            return REPO_ROOT / "solutions" / self.lab_id / self.notebook
        path = Path(self.solution)
        if not path.is_absolute() and self.origin:
            path = Path(self.origin).parent / path
        return path.resolve()

    def task(self, grade_id: str) -> Task:
        for task in self.tasks:
            if task.grade_id == grade_id:
                return task
        raise KeyError(f"{self.lab_id} has no task with grade_id {grade_id!r}")

    @property
    def total_points(self) -> float:
        return sum(task.points for task in self.tasks)

    @property
    def forbids(self) -> tuple[str, ...]:
        """Every rule of every task, once each, in order."""
        return tuple(dict.fromkeys(rule for task in self.tasks for rule in task.forbids))


_SPECS: dict[str, LabSpec] = {}


def _spec_from_file(path: Path) -> LabSpec:
    import hashlib
    import importlib.util
    import sys

    name = "autograder_spec_" + hashlib.sha1(str(path).encode()).hexdigest()[:12]
    module_spec = importlib.util.spec_from_file_location(name, path)
    if module_spec is None or module_spec.loader is None:
        raise ImportError(f"{path}: not a Python module")
    module = importlib.util.module_from_spec(module_spec)
    sys.modules[name] = module          # dataclasses and pickling look modules up by name
    module_spec.loader.exec_module(module)
    spec = getattr(module, "SPEC", None)
    if not isinstance(spec, LabSpec):
        raise ImportError(f"{path}: defines no SPEC = LabSpec(...)")
    return replace(spec, origin=str(path))


def load_spec(lab_id: str | Path, root: str | Path | None = None) -> LabSpec:
    """Return the SPEC of a lab, by id or by spec module path (tests use fixture specs).

    By id: the course root's solutions/<lab>/spec.py (root: `root`, else COURSE_ROOT, else this
    checkout; a private instructor folder keeps its labs there), else this checkout's
    solutions/<lab>/spec.py (the course's own labs, whatever the root). A lab is one folder: there is
    no other place a spec is looked for. Cached per process.
    """

    from coursekit.paths import course_root

    key = str(lab_id)
    if isinstance(lab_id, Path) or key.endswith(".py"):
        path = Path(lab_id).resolve()
        if not path.is_file():
            raise FileNotFoundError(f"{path}: spec module not found")
        spec = _SPECS.get(str(path)) or _spec_from_file(path)
        _SPECS[str(path)] = spec
        return spec
    for base in (Path(root or course_root()).resolve(), REPO_ROOT):
        beside = base / "solutions" / key / SPEC_FILE
        try:
            found = beside.is_file()
        except PermissionError:   # a class hub closes the checkout's solutions/ to all but root: not ours
            found = False
        if found:
            return load_spec(beside)
    if key in _SPECS:
        return _SPECS[key]
    raise ModuleNotFoundError(f"no spec for lab {key!r}: solutions/{key}/{SPEC_FILE} does not exist")


def spec_module(lab_id: str) -> Any:
    """The module a lab's spec was loaded from (its helpers, for tests and benchmarks)."""
    import sys

    origin = load_spec(lab_id).origin
    for module in list(sys.modules.values()):
        if getattr(module, "__file__", None) and origin and Path(module.__file__).resolve() == Path(origin):
            return module
    raise ModuleNotFoundError(f"the spec of {lab_id!r} ({origin}) is not loaded as a module")
