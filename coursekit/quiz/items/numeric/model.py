"""type: numeric -- a number computed by course code, accepted within a tolerance, with feedback for
the common mistakes: its model."""
from __future__ import annotations

import math
from typing import Any

from ...bank import Item, _Reader
from ...engine import (ItemError, Outcome, Question, call_spec, format_number, outside_tolerance, parse_number,
                       render, within)
from ...numbers import _fmt
from ..base import ItemModel


HUNDREDFOLD = ("Off by a factor of 100, the rest is right: check whether the question asks for a percent "
               "or a fraction (39% is the fraction 0.39).")


def implausible(q: Question) -> list[str]:
    """Why a numeric variant's key cannot be a real answer (empty when it can). Every quantity the course
    asks for is positive; an MFU above 100% (a run faster than its chips' peak) is impossible."""
    found = []
    if not math.isfinite(q.answer) or q.answer <= 0:
        found.append(f"the computed answer {q.answer!r} is not a positive number. Fix: check the answer's fn and "
                     "its args (a scale of 0, a wrong parameter name, inputs that cancel); if the quantity can be 0 "
                     "or negative, ask for a positive one (a saving rather than a cost, a size rather than a change)")
    elif "mfu" in q.item.id.split("-"):
        fraction = q.answer / 100 if q.item.units.strip() == "%" else q.answer
        if not 0 < fraction < 1:
            found.append(f"the keyed MFU {q.answer:.4g}{q.item.units} is not between 0 and 100% of peak")
    return found


class Numeric(ItemModel):
    name = "numeric"
    keys = frozenset({"answer", "tolerance", "units", "mistakes", "feedback"})

    def read(self, r: _Reader, data: dict, item_id: str) -> dict[str, Any]:
        fields: dict[str, Any] = {"answer": r.fn_spec(data.get("answer"), item_id, "answer")}
        tol = data.get("tolerance")
        if (not isinstance(tol, dict) or len(tol) != 1 or next(iter(tol)) not in ("rel", "abs")
                or isinstance(next(iter(tol.values())), bool)
                or not isinstance(next(iter(tol.values())), (int, float)) or next(iter(tol.values())) <= 0):
            r.problem(item_id, f"'tolerance' must be {{rel: x}} or {{abs: x}} with x > 0, got {tol!r}")
            tol = None
        fields["tolerance"] = tol
        units = data.get("units", "")
        if not isinstance(units, str):
            r.problem(item_id, f"'units' must be text, got {units!r}")
            units = ""
        fields["units"] = units
        feedback = data.get("feedback")
        if not isinstance(feedback, dict) or not {"correct", "incorrect"} <= set(feedback):
            r.problem(item_id, "a numeric item needs 'feedback: {correct: ..., incorrect: ...}'")
            feedback = {}
        fields["feedback"] = {k: str(v) for k, v in (feedback or {}).items()}
        mistakes = []
        for n, m in enumerate(data.get("mistakes") or [], 1):
            if not isinstance(m, dict) or "feedback" not in m:
                r.problem(item_id, f"mistake {n} needs 'value' and 'feedback'")
                continue
            spec = r.fn_spec(m.get("value"), item_id, f"mistake {n} value")
            if spec:
                mistakes.append({"value": spec, "feedback": str(m["feedback"])})
        fields["mistakes"] = tuple(mistakes)
        fields.update(self.read_params(r, data, item_id))
        if "options" in data:
            r.problem(item_id, f"a {self.name} item takes no 'options'")
        return fields

    def read_params(self, r: _Reader, data: dict, item_id: str) -> dict[str, Any]:
        """The inputs drawn per learner: none for a numeric item."""
        if "params" in data:
            r.problem(item_id, "only type: param items may have 'params'")
        return {}

    def fill(self, q: Question, names: dict) -> None:
        item = q.item
        if item.answer is None:
            raise ItemError("the answer is not a valid {fn, args, scale} mapping")
        q.answer = call_spec(item.answer, names)
        names["answer"] = q.answer
        q.mistakes = [(call_spec(m["value"], names), render(m["feedback"], names, what=f"mistake {n} feedback"))
                      for n, m in enumerate(item.mistakes, 1)]
        q.feedback = {k: render(v, names, what=f"{k} feedback") for k, v in item.feedback.items()}

    def correct_response(self, q: Question) -> float:
        return q.answer

    def grade(self, q: Question, response: Any) -> Outcome:
        item = q.item
        value = parse_number(response, item.units)
        if within(value, q.answer, item.tolerance):
            return Outcome(True, q.feedback.get("correct", ""), q.explanation, value)
        for mistake, feedback in q.mistakes:
            if within(value, mistake, item.tolerance):
                return Outcome(False, feedback, q.explanation, value)
        # percent or fraction (quiz-engine.js does the same): a fraction where a percent is asked is
        # right, said how it was read; any other factor-of-100 slip is named rather than left as "wrong"
        if item.units.strip() == "%" and 0 < value <= 1 and within(value * 100, q.answer, item.tolerance):
            read = f"Read your answer as the fraction {_fmt(value)}, that is {_fmt(value * 100)}%."
            return Outcome(True, f"{q.feedback.get('correct', '')} {read}".strip(), q.explanation, value)
        if any(within(value * k, q.answer, item.tolerance) for k in (100, 0.01)):
            return Outcome(False, HUNDREDFOLD, q.explanation, value)
        return Outcome(False, q.feedback.get("incorrect", ""), q.explanation, value)

    def key_text(self, q: Question) -> str:
        return f"{format_number(q.answer)} {q.item.units}".strip()

    def selftest(self, q: Question) -> list[str]:
        found = implausible(q)
        tol = q.item.tolerance
        if not self.grade(q, q.answer).correct:
            found.append(f"the computed answer {q.answer!r} is not accepted")
        off = outside_tolerance(q.answer, tol)
        if self.grade(q, off).correct:
            found.append(f"an out-of-tolerance value {off!r} is accepted (answer {q.answer!r})")
        for n, (value, feedback) in enumerate(q.mistakes, 1):
            if within(value, q.answer, tol):
                found.append(f"mistake {n} value {value:.6g} is within tolerance of the answer {q.answer:.6g}, "
                             "so it would be marked correct")
                continue
            outcome = self.grade(q, value)
            if outcome.correct or outcome.feedback != feedback:
                found.append(f"mistake {n} value {value:.6g} does not get its own feedback "
                             "(another mistake overlaps it)")
        return found

    def site_seeds(self, item: Item, variants: int) -> list[int]:
        return [0]

    def export_variant(self, q: Question) -> dict:
        return {"answer": q.answer, "mistakes": [[value, text] for value, text in q.mistakes],
                "feedback": dict(q.feedback)}

    def export_item(self, item: Item) -> dict:
        return {"units": item.units, "tolerance": dict(item.tolerance)}
