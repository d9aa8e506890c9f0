"""type: param -- a numeric item whose inputs are drawn per learner and attempt (its seed): its model."""
from __future__ import annotations

import math
from typing import Any

from ...bank import Item, _Reader
from ....seeds import rng_for
from ..numeric.model import Numeric


def _read_param(r: _Reader, item_id: str, name: str, spec: Any) -> None:
    if not isinstance(spec, dict) or not ({"choices", "range"} & set(spec)):
        r.problem(item_id, f"param '{name}' needs 'choices: [...]' or 'range: [lo, hi]'")
        return
    if "choices" in spec:
        choices = spec["choices"]
        if not isinstance(choices, list) or not choices:
            r.problem(item_id, f"param '{name}': choices must be a non-empty list")
        return
    rng = spec["range"]
    if (not isinstance(rng, list) or len(rng) != 2
            or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in rng) or rng[0] >= rng[1]):
        r.problem(item_id, f"param '{name}': range must be [lo, hi] numbers with lo < hi, got {rng!r}")
    step, digits = spec.get("step"), spec.get("digits")
    if step is not None and (isinstance(step, bool) or not isinstance(step, (int, float)) or step <= 0):
        r.problem(item_id, f"param '{name}': step must be a positive number, got {step!r}")
    if digits is not None and (isinstance(digits, bool) or not isinstance(digits, int) or digits < 0):
        r.problem(item_id, f"param '{name}': digits must be a whole number >= 0, got {digits!r}")


class Param(Numeric):
    name = "param"
    keys = Numeric.keys | {"params"}
    varies = True

    def read_params(self, r: _Reader, data: dict, item_id: str) -> dict[str, Any]:
        params = data.get("params")
        if not isinstance(params, dict) or not params:
            r.problem(item_id, "a param item needs 'params': inputs drawn per student")
            params = {}
        for name, spec in params.items():
            _read_param(r, item_id, str(name), spec)
        return {"params": dict(params)}

    def draw_params(self, item: Item, seed: int) -> dict:
        """One variant's inputs: each parameter drawn from its choices or range by a seeded generator."""
        rng = rng_for("params", item.id, seed)
        values = {}
        for name, spec in item.params.items():
            if "choices" in spec:
                values[name] = rng.choice(spec["choices"])
                continue
            lo, hi = spec["range"]
            step, digits = spec.get("step"), spec.get("digits")
            if step is not None:
                n = int(math.floor((hi - lo) / step + 1e-9))
                value = lo + step * rng.randint(0, n)
                all_ints = all(isinstance(v, int) for v in (lo, hi, step))
                values[name] = int(value) if all_ints else round(value, 12)
            elif digits is not None:
                values[name] = round(rng.uniform(lo, hi), digits)
            elif isinstance(lo, int) and isinstance(hi, int):
                values[name] = rng.randint(lo, hi)
            else:
                values[name] = round(rng.uniform(lo, hi), 2)
        return values

    def check_variants(self, variants: list[tuple[tuple, Any]], seeds: int) -> list[str]:
        if len({v[0] for v in variants}) < 2:
            return [f"all {seeds} seeds give the same parameters; widen the ranges or choices"]
        if len({v[1] for v in variants}) < 2:
            return [f"all {seeds} seeds give the same answer; the parameters do not reach it"]
        return []

    def site_seeds(self, item: Item, variants: int) -> list[int]:
        return list(range(variants))
