"""The contract between a graded lab and the autograder.

Each lab has a spec module `autograder/specs/<lab_id_with_underscores>.py` exposing `SPEC: LabSpec`.
A task is one nbgrader test cell (its `grade_id`) worth `points`; it passes when the student's
function matches the trusted reference on every visible case and on `n_hidden` hidden cases.

Why data, not asserts: the trusted grader must judge *outside* the student's process. The student
process only calls the student's function on the case inputs and returns encoded outputs; the
trusted process computes the reference on the same inputs and compares. The same spec also drives
the visible checks a student runs in the notebook (`autograder.check.run_visible`) and the hidden
checks inside nbgrader's own kernel (`autograder.hidden.check_task`), so all three agree.

Data flow of one case (all plain data crosses the process boundary):
    case.args/kwargs (JSON-able)  --task.prepare-->  call arguments (tensors, models, ...)
    student_fn(*call_args)        --task.encode--->  JSON-able output (runs in the student process)
    reference(*call_args)         --task.encode--->  JSON-able output (runs in the trusted process)
    task.compare(student, reference) -> None if equal enough, else a teaching message
"""
from __future__ import annotations

import math
import random
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable

REPO_ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Case:
    name: str                                   # shown to the student, e.g. "square 4096 matmul in BF16"
    args: tuple = ()                            # JSON-able plain data (numbers, strings, lists, dicts)
    kwargs: dict = field(default_factory=dict)  # JSON-able plain data
    hint: str = ""                              # teaching message shown when this case fails
    expected: Any = None                        # visible cases only: the encoded reference output,
                                                # shown to students; tests check it equals the reference


def encode(value: Any) -> Any:
    """Turn an output into plain JSON-able data. Tensors/arrays become {"shape", "data"}."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return int(value)
    if isinstance(value, float):
        return float(value)
    if hasattr(value, "detach") and hasattr(value, "tolist"):   # torch.Tensor, without importing torch
        t = value.detach().to("cpu")
        if t.is_floating_point():
            t = t.double()
        return {"shape": list(t.shape), "data": t.reshape(-1).tolist()}
    if hasattr(value, "tolist") and hasattr(value, "shape"):   # numpy array or scalar
        return {"shape": list(value.shape), "data": value.reshape(-1).tolist()} if value.shape else value.item()
    if isinstance(value, dict):
        return {str(k): encode(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [encode(v) for v in value]
    if isinstance(value, (int, float)):  # numpy/torch scalars that passed the checks above
        return float(value)
    raise TypeError(f"cannot encode a {type(value).__name__} as plain data")


def pick_keys(keys: tuple[str, ...]) -> Callable[[Any], dict[str, float]]:
    """An encoder for tasks that return a dict: the named keys as floats, or a TypeError naming them."""
    def encode_keys(out: Any) -> dict[str, float]:
        if not isinstance(out, dict) or not set(keys) <= set(out):
            raise TypeError(f"return a dict with keys {', '.join(keys)}")
        return {key: float(out[key]) for key in keys}
    return encode_keys


def approx(rel: float = 1e-6, abs_: float = 1e-9) -> Callable[[Any, Any], str | None]:
    """Compare encoded outputs elementwise: numbers within tolerance, everything else exactly."""

    def compare(got: Any, want: Any, path: str = "output") -> str | None:
        if isinstance(want, bool) or want is None or isinstance(want, str):
            return None if got == want and type(got) is type(want) else f"{path}: expected {want!r}, got {got!r}"
        if isinstance(want, (int, float)):
            if isinstance(got, bool) or not isinstance(got, (int, float)):
                return f"{path}: expected a number, got {type(got).__name__}"
            if math.isnan(want):
                return None if math.isnan(got) else f"{path}: expected NaN, got {got!r}"
            if math.isclose(got, want, rel_tol=rel, abs_tol=abs_):
                return None
            return f"{path}: expected {want:.6g}, got {got:.6g}"
        if isinstance(want, dict):
            if not isinstance(got, dict):
                return f"{path}: expected a {'tensor' if 'shape' in want else 'dict'}, got {type(got).__name__}"
            if set(got) != set(want):
                return f"{path}: expected keys {sorted(want)}, got {sorted(got)}"
            if "shape" in want and got["shape"] != want["shape"]:
                return f"{path}: expected shape {tuple(want['shape'])}, got {tuple(got['shape'])}"
            for key in want:
                message = compare(got[key], want[key], f"{path}[{key!r}]" if "shape" not in want else path)
                if message:
                    return message
            return None
        if isinstance(want, list):
            if not isinstance(got, list) or len(got) != len(want):
                return f"{path}: expected a list of length {len(want)}, got {got!r:.80}"
            for i, (g, w) in enumerate(zip(got, want)):
                message = compare(g, w, f"{path}[{i}]")
                if message:
                    return message
            return None
        return f"{path}: cannot compare {type(want).__name__}"

    return compare


def _identity(case: Case) -> tuple[tuple, dict]:
    return tuple(case.args), dict(case.kwargs)


# What no graded function may call by default: the course's calculators and model pieces that answer
# tasks outright, and the grader's own code (the specs' expected-value helpers, the reference). A task
# that teaches with a course building block declares its own list (see docs/INSTRUCTORS.md).
DEFAULT_FORBIDDEN = ("coursekit.calc", "coursekit.nn.moe", "coursekit.nn.decoder.greedy_generate", "autograder")


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
    prepare: Callable[[Case], tuple[tuple, dict]] = _identity  # plain-data case -> call args; runs in
                                                               # both processes, must be deterministic
    reference: Callable[..., Any] | None = None     # trusted reference; default: the solution
                                                    # notebook's function named `function`
    encode: Callable[[Any], Any] = encode           # output -> plain data (runs in the student process)
    forbidden: tuple[str, ...] | None = None        # code the graded function may not reach: modules,
                                                    # functions or methods by dotted name; None: DEFAULT_FORBIDDEN

    @property
    def forbids(self) -> tuple[str, ...]:
        return DEFAULT_FORBIDDEN if self.forbidden is None else tuple(self.forbidden)


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

    def solution_path(self) -> Path:
        if self.solution is None:
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


def load_spec(lab_id: str | Path) -> LabSpec:
    """Return the SPEC of a lab, by id or by spec module path (tests use fixture specs).

    By id: import autograder.specs.<lab_id with '-' as '_'>; if there is none, look for that file in
    the folders of AUTOGRADER_SPEC_PATH (os.pathsep-separated). Cached per process.
    """
    import importlib
    import os

    key = str(lab_id)
    if key in _SPECS:
        return _SPECS[key]
    if isinstance(lab_id, Path) or key.endswith(".py"):
        path = Path(lab_id).resolve()
        if not path.is_file():
            raise FileNotFoundError(f"{path}: spec module not found")
        spec = _SPECS.get(str(path)) or _spec_from_file(path)
        _SPECS[str(path)] = spec
    else:
        name = key.replace("-", "_")
        try:
            module = importlib.import_module(f"autograder.specs.{name}")
        except ModuleNotFoundError as error:
            if error.name != f"autograder.specs.{name}":
                raise                       # the spec exists but one of its imports is missing
            folders = [p for p in os.environ.get("AUTOGRADER_SPEC_PATH", "").split(os.pathsep) if p]
            for folder in folders:
                if (Path(folder) / f"{name}.py").is_file():
                    return _SPECS.setdefault(key, load_spec(Path(folder) / f"{name}.py"))
            raise ModuleNotFoundError(f"no spec for lab {key!r}: autograder/specs/{name}.py does not exist"
                                      + (f" and none in AUTOGRADER_SPEC_PATH ({', '.join(folders)})" if folders else "")
                                      ) from None
        spec = module.SPEC
        if spec.origin is None:
            spec = replace(spec, origin=str(Path(module.__file__).resolve()))
    _SPECS[key] = spec
    return spec
