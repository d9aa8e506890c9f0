"""What a lab's checks are made of, on the student's side: cases as plain data, the encoder that turns
outputs into plain data, and the comparison with teaching messages.

The grader (`autograder.spec`) builds its lab specs from these same pieces, so a student's visible
check and the judge's verdict encode and compare alike. Every piece a check needs by name
(`coursekit.checks.named`) is a module-level function or a small callable class, so the visible
checks can be written to a data file next to the student's notebook.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

# What no graded function may call by default: the course's calculators and model pieces that answer
# tasks outright, and the grader's own code. A task that teaches with a course building block declares
# its own list (see docs/INSTRUCTORS.md).
DEFAULT_FORBIDDEN = ("coursekit.calc", "coursekit.nn.moe", "coursekit.nn.decoder.greedy_generate", "autograder")


@dataclass(frozen=True)
class Case:
    name: str                                   # shown to the student, e.g. "square 4096 matmul in BF16"
    args: tuple = ()                            # JSON-able plain data (numbers, strings, lists, dicts)
    kwargs: dict = field(default_factory=dict)  # JSON-able plain data
    hint: str = ""                              # teaching message shown when this case fails
    expected: Any = None                        # visible cases only: the encoded reference output,
                                                # shown to students; tests check it equals the reference


def plain_args(case: Case) -> tuple[tuple, dict]:
    """The default `prepare`: the case's own arguments."""
    return tuple(case.args), dict(case.kwargs)


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


def as_number(out: Any) -> float:
    """An encoder for tasks that return one number."""
    if isinstance(out, bool) or not isinstance(out, (int, float)):
        raise TypeError(f"return a number (int or float), got {type(out).__name__}")
    return float(out)


@dataclass(frozen=True)
class pick_keys:  # noqa: N801 - used like the function it replaced: encode=pick_keys(("a", "b"))
    """An encoder for tasks that return a dict: the named keys as floats, or a TypeError naming them."""
    keys: tuple[str, ...]

    def __call__(self, out: Any) -> dict[str, float]:
        if not isinstance(out, dict) or not set(self.keys) <= set(out):
            raise TypeError(f"return a dict with keys {', '.join(self.keys)}")
        return {key: float(out[key]) for key in self.keys}

    def as_data(self) -> dict:
        return {"call": f"{__name__}:pick_keys", "args": [list(self.keys)]}


@dataclass(frozen=True)
class approx:  # noqa: N801 - used like the function it replaced: compare=approx(rel=1e-5)
    """Compare encoded outputs elementwise: numbers within tolerance, everything else exactly."""
    rel: float = 1e-6
    abs_: float = 1e-9

    def as_data(self) -> dict:
        return {"call": f"{__name__}:approx", "kwargs": {"rel": self.rel, "abs_": self.abs_}}

    def __call__(self, got: Any, want: Any, path: str = "output") -> str | None:
        if isinstance(want, bool) or want is None or isinstance(want, str):
            return None if got == want and type(got) is type(want) else f"{path}: expected {want!r}, got {got!r}"
        if isinstance(want, (int, float)):
            if isinstance(got, bool) or not isinstance(got, (int, float)):
                return f"{path}: expected a number, got {type(got).__name__}"
            if math.isnan(want):
                return None if math.isnan(got) else f"{path}: expected NaN, got {got!r}"
            if math.isclose(got, want, rel_tol=self.rel, abs_tol=self.abs_):
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
                message = self(got[key], want[key], f"{path}[{key!r}]" if "shape" not in want else path)
                if message:
                    return message
            return None
        if isinstance(want, list):
            if not isinstance(got, list) or len(got) != len(want):
                return f"{path}: expected a list of length {len(want)}, got {got!r:.80}"
            for i, (g, w) in enumerate(zip(got, want)):
                message = self(g, w, f"{path}[{i}]")
                if message:
                    return message
            return None
        return f"{path}: cannot compare {type(want).__name__}"
