"""Prove every item before a learner sees it (after PrairieLearn's question self-test).

For each item: every placeholder fills, every function resolves, the key is accepted, every wrong
option and an out-of-tolerance number are rejected, each listed mistake is rejected with its own
feedback, a param item's variants repeat for a seed and differ across seeds, and every numeric
answer is plausible (`implausible`): finite and positive (times, costs, sizes and rates are), and an
item whose id names an MFU keys a fraction of peak strictly between 0 and 1 (0% and 100%).
"""
from __future__ import annotations

from pathlib import Path

from .bank import Bank, Item, Problem, pool, resolve_bank, scan_banks
from .engine import ItemError, instantiate
from .items.registry import item_type
from .items.numeric.model import implausible  # noqa: F401  (a numeric item's plausibility, re-exported)

SEEDS = tuple(range(8))   # variants tried per param item: enough to see them differ, cheap to run


def check_item(item: Item) -> list[str]:
    """Every problem with one item, as messages (empty when the item proves itself)."""
    kind = item_type(item.type)     # its own checks; a type that varies per seed is tried on several
    seeds = SEEDS if kind.varies else SEEDS[:1]
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
        found += kind.selftest(q)
        if found:
            return [f"seed {seed}: {m}" if kind.varies else m for m in dict.fromkeys(found)]
        variants.append((tuple(sorted(q.params.items(), key=str)), q.answer))
        for name, spec in item.params.items():
            value = q.params[name]
            if "range" in spec and not spec["range"][0] <= value <= spec["range"][1]:
                found.append(f"param {name}={value} falls outside its range {spec['range']}")
    return found + kind.check_variants(variants, len(seeds))


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
    """Banks under root and the problems that stop `bank_id` (and what it includes) from rendering;
    `bank_id` may be a former id (resolve_bank finds the bank under its id now)."""
    banks, problems = scan_banks(root)
    bank = resolve_bank(banks, bank_id)
    if bank is None:
        known = ", ".join(sorted(banks)) or "none"
        return banks, [Problem(str(root), bank_id, f"no bank with this id (known: {known})")]
    files = {bank.path} | {banks[b].path for b in bank.include if b in banks}
    mine = [p for p in problems if p.file in files]
    skip = {(p.file, p.item) for p in mine}
    for b in [bank] + [banks[b] for b in bank.include if b in banks]:
        mine += check_bank(b, banks, skip)
    return banks, sorted(set(mine))
