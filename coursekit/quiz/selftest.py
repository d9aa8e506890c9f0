"""Prove every item before a learner sees it (after PrairieLearn's question self-test).

For each item: every placeholder fills, every function resolves, the key is accepted, every wrong
option and an out-of-tolerance number are rejected, each listed mistake is rejected with its own
feedback, a param item's variants repeat for a seed and differ across seeds, and every numeric
answer is plausible (`implausible`): finite and positive (times, costs, sizes and rates are), and an
item whose id names an MFU keys a fraction of peak strictly between 0 and 1 (0% and 100%).
"""
from __future__ import annotations

import math
from pathlib import Path

from .bank import Bank, Item, Problem, pool, scan_banks
from .engine import ItemError, Question, grade, instantiate, outside_tolerance, within

SEEDS = tuple(range(8))   # variants tried per param item: enough to see them differ, cheap to run


def _check_choice(q: Question) -> list[str]:
    found = []
    texts = q.option_texts
    if len(set(texts)) != len(texts):
        found.append("two options have the same text")
    key = q.correct_response()
    if not grade(q, key).correct:
        found.append("the correct option(s) are not accepted")
    wrong = [i for i, o in enumerate(q.item.options) if not o.correct]
    for i in wrong:
        response = i if q.type == "single" else key | {i}
        if grade(q, response).correct:
            found.append(f"wrong option {i + 1} ({texts[i][:40]!r}) is accepted")
    if q.type == "multi":
        for i in key:
            if grade(q, key - {i}).correct:
                found.append(f"leaving out correct option {i + 1} is still accepted")
    return found


def implausible(q: Question) -> list[str]:
    """Why a numeric variant's key cannot be a real answer (empty when it can). Every quantity the course
    asks for is positive; an MFU above 100% (a run faster than its chips' peak) is impossible."""
    found = []
    if not math.isfinite(q.answer) or q.answer <= 0:
        found.append(f"the computed answer {q.answer!r} is not a positive number")
    elif "mfu" in q.item.id.split("-"):
        fraction = q.answer / 100 if q.item.units.strip() == "%" else q.answer
        if not 0 < fraction < 1:
            found.append(f"the keyed MFU {q.answer:.4g}{q.item.units} is not between 0 and 100% of peak")
    return found


def _check_number(q: Question) -> list[str]:
    found = implausible(q)
    tol = q.item.tolerance
    if not grade(q, q.answer).correct:
        found.append(f"the computed answer {q.answer!r} is not accepted")
    off = outside_tolerance(q.answer, tol)
    if grade(q, off).correct:
        found.append(f"an out-of-tolerance value {off!r} is accepted (answer {q.answer!r})")
    for n, (value, feedback) in enumerate(q.mistakes, 1):
        if within(value, q.answer, tol):
            found.append(f"mistake {n} value {value:.6g} is within tolerance of the answer {q.answer:.6g}, "
                         "so it would be marked correct")
            continue
        outcome = grade(q, value)
        if outcome.correct or outcome.feedback != feedback:
            found.append(f"mistake {n} value {value:.6g} does not get its own feedback "
                         "(another mistake overlaps it)")
    return found


def check_item(item: Item) -> list[str]:
    """Every problem with one item, as messages (empty when the item proves itself)."""
    seeds = SEEDS if item.type == "param" else SEEDS[:1]
    found: list[str] = []
    variants = []
    for seed in seeds:
        try:
            q = instantiate(item, seed)
            again = instantiate(item, seed)
        except ItemError as exc:
            return [str(exc)]
        if (q.params, q.answer, q.stem, q.order) != (again.params, again.answer, again.stem, again.order):
            return [f"seed {seed} gives a different variant each time (not deterministic)"]
        found += _check_choice(q) if item.type in ("single", "multi") else _check_number(q)
        if found:
            return [f"seed {seed}: {m}" if item.type == "param" else m for m in dict.fromkeys(found)]
        variants.append((tuple(sorted(q.params.items(), key=str)), q.answer))
        for name, spec in item.params.items():
            value = q.params[name]
            if "range" in spec and not spec["range"][0] <= value <= spec["range"][1]:
                found.append(f"param {name}={value} falls outside its range {spec['range']}")
    if item.type == "param" and len({v[0] for v in variants}) < 2:
        found.append(f"all {len(seeds)} seeds give the same parameters; widen the ranges or choices")
    elif item.type == "param" and len({v[1] for v in variants}) < 2:
        found.append(f"all {len(seeds)} seeds give the same answer; the parameters do not reach it")
    return found


def check_bank(bank: Bank, banks: dict[str, Bank], skip: set = frozenset()) -> list[Problem]:
    """Self-test the bank's own items (included banks are checked where they live); items in `skip`
    (already failing the schema check) are not self-tested, so each fault is reported once."""
    problems = [Problem(bank.path, item.id, msg) for item in bank.items if (bank.path, item.id) not in skip
                for msg in check_item(item)]
    if bank.kind == "module-test" and len(pool(bank, banks)) < bank.show:
        problems.append(Problem(bank.path, "", f"shows {bank.show} but the pool has {len(pool(bank, banks))}"))
    return problems


def check_banks(root: Path | str = "quizzes") -> list[Problem]:
    """Every problem in every bank under root: schema, cross-bank references and item self-tests."""
    banks, problems = scan_banks(root)
    skip = {(p.file, p.item) for p in problems}
    for bank in banks.values():
        problems += check_bank(bank, banks, skip)
    return sorted(set(problems))


def bank_problems(bank_id: str, root: Path | str = "quizzes") -> tuple[dict[str, Bank], list[Problem]]:
    """Banks under root and the problems that stop `bank_id` (and what it includes) from rendering."""
    banks, problems = scan_banks(root)
    if bank_id not in banks:
        known = ", ".join(sorted(banks)) or "none"
        return banks, [Problem(str(root), bank_id, f"no bank with this id (known: {known})")]
    bank = banks[bank_id]
    files = {bank.path} | {banks[b].path for b in bank.include if b in banks}
    mine = [p for p in problems if p.file in files]
    skip = {(p.file, p.item) for p in mine}
    for b in [bank] + [banks[b] for b in bank.include if b in banks]:
        mine += check_bank(b, banks, skip)
    return banks, sorted(set(mine))
