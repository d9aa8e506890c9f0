"""Question banks: read the YAML files in quizzes/ into typed objects, reporting every schema problem.

The schema is documented in quizzes/README.md. This module checks structure only (fields, types,
counts); whether each item can actually be answered is proved by coursekit.quiz.selftest.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import yaml

from .items.registry import ITEM_TYPES   # type name -> its kind (coursekit/quiz/items), re-exported
from .model import Item, Option  # noqa: F401 - re-exported: the bank's own types

BANK_KINDS = ("lesson-quiz", "module-test")
ITEM_KEYS = frozenset({"id", "type", "stem", "explanation", "source", "values", "shuffle"})  # every type's
# The course's standards (quizzes/README.md): a lesson quiz draws >= 3 from a pool >= 6 so a retry
# sees different questions; a module test draws 15 from a pool >= 25.
LESSON_MIN_POOL, LESSON_MIN_SHOW = 6, 3
MODULE_TEST_MIN_POOL, MODULE_TEST_SHOW = 25, 15


class _Loader(yaml.SafeLoader):
    """SafeLoader that reads 70.0e9 and 1e9 as numbers (YAML 1.2), as bank authors expect; plain
    PyYAML follows YAML 1.1, where an exponent without a sign makes the value a string."""


_FLOAT = re.compile(r"""^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+]?[0-9]+)?
                  |[-+]?(?:[0-9][0-9_]*)(?:[eE][-+]?[0-9]+)
                  |\.[0-9_]+(?:[eE][-+]?[0-9]+)?
                  |[-+]?\.(?:inf|Inf|INF)
                  |\.(?:nan|NaN|NAN))$""", re.X)
_Loader.add_implicit_resolver("tag:yaml.org,2002:float", _FLOAT, list("-+0123456789."))

# The same loader on libyaml's C parser, where PyYAML was built with it: parsing every bank (which each
# lesson's show_quiz does) takes about 0.1 s instead of 2-3 s. Same resolvers and constructors, so the same
# data; a file it rejects is parsed again by _Loader, so error messages (line, column) stay _Loader's.
if getattr(yaml, "__with_libyaml__", False):
    class _FastLoader(yaml.CSafeLoader):
        pass

    _FastLoader.add_implicit_resolver("tag:yaml.org,2002:float", _FLOAT, list("-+0123456789."))
else:
    _FastLoader = _Loader


def _load_yaml(text: str) -> Any:
    try:
        return yaml.load(text, Loader=_FastLoader)
    except yaml.YAMLError:
        return yaml.load(text, Loader=_Loader)   # raises, with _Loader's message


class Problem(NamedTuple):
    """One thing wrong with a bank: which file, which item ("" for the bank itself), what."""
    file: str
    item: str
    message: str

    def __str__(self) -> str:
        where = f"{self.file}: {self.item}" if self.item else self.file
        return f"{where}: {self.message}"


class BankError(Exception):
    """A bank (or several) failed its checks; `problems` lists every one found."""

    def __init__(self, problems: list[Problem]):
        self.problems = list(problems)
        super().__init__("\n".join(str(p) for p in self.problems))


@dataclass(frozen=True)
class Bank:
    id: str
    title: str
    module: str
    kind: str
    show: int
    items: tuple[Item, ...]
    path: str
    pass_mark: float | None = None
    include: tuple[str, ...] = ()
    formerly: tuple[str, ...] = ()      # ids it had before a rename: lookups and recorded attempts still find it


def display_path(path: Path | str) -> str:
    """A short path for messages: relative to the working directory when it is below it."""
    path = Path(path)
    try:
        return os.path.relpath(path) if not os.path.relpath(path).startswith("..") else str(path)
    except ValueError:  # another drive on Windows
        return str(path)


LOCAL_MODULE = "formulas"   # a private course's own functions: formulas.py beside its banks


class _Reader:
    """Collects problems for one file while it is converted into Bank/Item objects."""

    def __init__(self, file: str, folder: Path | None = None):
        self.file = file
        self.folder = folder            # the bank's folder: where its own formulas.py lives
        self.problems: list[Problem] = []

    def problem(self, item: str, message: str) -> None:
        self.problems.append(Problem(self.file, item, message))

    def text(self, data: dict, key: str, item: str, *, required: bool = True) -> str:
        value = data.get(key)
        if value is None:
            if required:
                self.problem(item, f"missing '{key}'")
            return ""
        if not isinstance(value, str) or not value.strip():
            self.problem(item, f"'{key}' must be non-empty text, got {value!r}")
            return ""
        return value.strip()

    def fn_spec(self, spec: Any, item: str, what: str) -> dict | None:
        if not isinstance(spec, dict) or "fn" not in spec:
            self.problem(item, f"{what} must be a mapping with 'fn: \"module:function\"' "
                               f"(numbers are computed, never typed), got {spec!r}")
            return None
        unknown = set(spec) - {"fn", "args", "scale"}
        if unknown:
            self.problem(item, f"{what} has unknown keys {sorted(unknown)} (allowed: fn, args, scale)")
        fn = spec["fn"]
        if not isinstance(fn, str) or fn.count(":") != 1 or not all(fn.split(":")):
            self.problem(item, f"{what}: fn must look like 'coursekit.calc.memory:weight_bytes', got {fn!r}")
            return None
        if fn.startswith(f"{LOCAL_MODULE}:"):
            local = (self.folder or Path.cwd()) / f"{LOCAL_MODULE}.py"
            if not local.is_file():
                self.problem(item, f"{what}: fn {fn!r} needs {LOCAL_MODULE}.py beside the bank "
                                   f"({display_path(local)}), and there is none")
                return None
            fn = f"{local.resolve()}:{fn.partition(':')[2]}"   # engine.resolve_function loads it by path
        elif not (fn.startswith("coursekit.") or fn.startswith("coursekit:")):
            self.problem(item, f"{what}: fn {fn!r} is outside coursekit; banks may only call course code "
                               f"(coursekit, or a function of your own in {LOCAL_MODULE}.py beside the bank: "
                               f"fn: \"{LOCAL_MODULE}:name\")")
            return None
        if not isinstance(spec.get("args", {}), dict):
            self.problem(item, f"{what}: args must be a mapping of keyword arguments, got {spec['args']!r}")
            return None
        scale = spec.get("scale", 1.0)
        if isinstance(scale, bool) or not isinstance(scale, (int, float)):
            self.problem(item, f"{what}: scale must be a number, got {scale!r}")
            return None
        return {"fn": fn, "args": dict(spec.get("args") or {}), "scale": float(scale)}


def _read_item(r: _Reader, data: Any, n: int, bank_id: str) -> Item | None:
    if not isinstance(data, dict):
        r.problem(f"item {n}", "each item must be a mapping")
        return None
    item_id = data.get("id")
    if not isinstance(item_id, str) or not item_id.strip():
        r.problem(f"item {n}", "missing 'id'")
        item_id = f"item {n}"
    kind = data.get("type")
    if kind not in ITEM_TYPES:
        r.problem(item_id, f"'type' must be one of {', '.join(ITEM_TYPES)}, got {kind!r}")
        return None
    fields: dict[str, Any] = ITEM_TYPES[kind].model.read(r, data, item_id)
    values = data.get("values") or {}
    if not isinstance(values, dict):
        r.problem(item_id, "'values' must map names to {fn, args, scale}")
        values = {}
    fields["values"] = {str(k): r.fn_spec(v, item_id, f"value '{k}'") for k, v in values.items()}
    shuffle = data.get("shuffle", True)
    if not isinstance(shuffle, bool):
        r.problem(item_id, f"'shuffle' must be true or false, got {shuffle!r}")
    known = ITEM_KEYS.union(*(t.model.keys for t in ITEM_TYPES.values()))
    unknown = set(data) - known
    if unknown:
        r.problem(item_id, f"unknown keys {sorted(unknown)} (typo?)")
    return Item(id=item_id, type=kind, stem=r.text(data, "stem", item_id),
                explanation=r.text(data, "explanation", item_id), source=r.text(data, "source", item_id),
                file=r.file, bank_id=bank_id, shuffle=shuffle is not False, **fields)


def _read_bank(r: _Reader, data: Any) -> Bank | None:
    if not isinstance(data, dict):
        r.problem("", "a bank file must be a YAML mapping with id, title, module, kind, show, items")
        return None
    bank_id = r.text(data, "id", "")
    kind = data.get("kind")
    if kind not in BANK_KINDS:
        r.problem("", f"'kind' must be one of {', '.join(BANK_KINDS)}, got {kind!r}")
    show = data.get("show")
    if isinstance(show, bool) or not isinstance(show, int) or show < 1:
        r.problem("", f"'show' must be a positive whole number, got {show!r}")
        show = 0
    pass_mark = data.get("pass_mark")
    include = data.get("include") or []
    formerly = data.get("formerly") or []
    if kind == "module-test":
        if isinstance(pass_mark, bool) or not isinstance(pass_mark, (int, float)) or not 0 < pass_mark <= 1:
            r.problem("", f"a module test needs 'pass_mark' in (0, 1], e.g. 0.8; got {pass_mark!r}")
            pass_mark = None
        if show and show != MODULE_TEST_SHOW:
            r.problem("", f"a module test shows {MODULE_TEST_SHOW} questions, not {show}")
        if not isinstance(include, list) or not all(isinstance(b, str) for b in include):
            r.problem("", f"'include' must be a list of bank ids, got {include!r}")
            include = []
        formerly = _former_ids(r, formerly, bank_id)
    else:
        # a lesson quiz's answers are stored under its id, which is its lesson's key (m1-l1) in the
        # progress report: renaming one would orphan them, so only module tests may list former ids
        for key in ("pass_mark", "include", "formerly"):
            if key in data:
                r.problem("", f"'{key}' is for module tests only")
        formerly = []
        if show and show < LESSON_MIN_SHOW:
            r.problem("", f"a lesson quiz shows at least {LESSON_MIN_SHOW} items, not {show}")
        include = []
    unknown = set(data) - {"id", "title", "module", "kind", "show", "pass_mark", "include", "formerly", "items"}
    if unknown:
        r.problem("", f"unknown bank keys {sorted(unknown)} (typo?)")
    raw_items = data.get("items")
    if not isinstance(raw_items, list):
        r.problem("", "'items' must be a list")
        raw_items = []
    items = [it for n, raw in enumerate(raw_items, 1) if (it := _read_item(r, raw, n, bank_id)) is not None]
    seen: set[str] = set()
    for it in items:
        if it.id in seen:
            r.problem(it.id, "duplicate item id in this bank")
        seen.add(it.id)
    if kind == "lesson-quiz" and len(raw_items) < LESSON_MIN_POOL:
        r.problem("", f"a lesson quiz pool needs at least {LESSON_MIN_POOL} items, has {len(raw_items)}")
    if kind == "lesson-quiz" and show and len(raw_items) < show:
        r.problem("", f"'show' is {show} but the pool has only {len(raw_items)} items")
    return Bank(id=bank_id, title=r.text(data, "title", ""), module=r.text(data, "module", ""),
                kind=str(kind), show=show, items=tuple(items), path=r.file,
                pass_mark=float(pass_mark) if pass_mark is not None else None, include=tuple(include),
                formerly=tuple(formerly))


def _former_ids(r: _Reader, formerly: Any, bank_id: str) -> list[str]:
    """'formerly': the ids a renamed bank had, each a non-empty text other than its own id."""
    if not isinstance(formerly, list) or not all(isinstance(f, str) and f.strip() for f in formerly):
        r.problem("", f"'formerly' must be a list of the ids this bank had before, e.g. [m1-module-test]; "
                      f"got {formerly!r}")
        return []
    formerly = list(dict.fromkeys(f.strip() for f in formerly))
    if bank_id in formerly:
        r.problem("", f"'formerly' lists the bank's own id {bank_id!r}: list only the ids it had before")
        formerly.remove(bank_id)
    return formerly


def read_bank(path: Path | str) -> tuple[Bank | None, list[Problem]]:
    """Parse one bank file; never raises for content problems, returns them instead."""
    path = Path(path)
    r = _Reader(display_path(path), path.resolve().parent)
    try:
        data = _load_yaml(path.read_text(encoding="utf-8"))
    except OSError as exc:
        r.problem("", f"cannot read: {exc.strerror or exc}")
        return None, r.problems
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        r.problem("", f"not valid YAML{where}: {getattr(exc, 'problem', None) or exc}")
        return None, r.problems
    bank = _read_bank(r, data)
    return bank, r.problems


def load_bank(path: Path | str) -> Bank:
    """Load one bank file; raises BankError listing every schema problem (file, item id, message)."""
    bank, problems = read_bank(path)
    if problems or bank is None:
        raise BankError(problems)
    return bank


def resolve_root(root: Path | str = "quizzes") -> Path:
    """A relative root that does not exist here is taken from the course root (notebooks run in
    course/<module>/, so "quizzes" must not depend on the working directory)."""
    path = Path(root).expanduser()
    if path.is_absolute() or path.exists():
        return path
    from coursekit.paths import course_root

    return course_root() / path


def bank_files(root: Path | str = "quizzes") -> list[Path]:
    root = resolve_root(root)
    return sorted(p for p in root.rglob("*.y*ml") if p.suffix in (".yaml", ".yml")
                  and ".ipynb_checkpoints" not in p.parts)


def scan_banks(root: Path | str = "quizzes") -> tuple[dict[str, Bank], list[Problem]]:
    """Every bank under root keyed by id, plus the schema and cross-bank problems found."""
    banks: dict[str, Bank] = {}
    problems: list[Problem] = []
    item_home: dict[str, str] = {}
    files = bank_files(root)
    if not files:
        problems.append(Problem(display_path(resolve_root(root)), "", "no bank files (*.yaml) found"))
    for path in files:
        bank, found = read_bank(path)
        problems += found
        if bank is None or not bank.id:
            continue
        if bank.id in banks:
            problems.append(Problem(bank.path, "", f"bank id {bank.id!r} is also used by {banks[bank.id].path}"))
            continue
        banks[bank.id] = bank
        for item in bank.items:
            if item.id in item_home and item_home[item.id] != bank.path:
                problems.append(Problem(bank.path, item.id, f"item id is also used in {item_home[item.id]}"))
            item_home.setdefault(item.id, bank.path)
    problems += _former_id_clashes(banks)
    for bank in banks.values():
        if bank.kind != "module-test":
            continue
        for other in bank.include:
            if other not in banks:
                problems.append(Problem(bank.path, "", f"include names unknown bank {other!r}"))
            elif banks[other].kind != "lesson-quiz":
                problems.append(Problem(bank.path, "", f"include {other!r} is not a lesson quiz"))
        size = len(pool(bank, banks))
        if size < MODULE_TEST_MIN_POOL:
            problems.append(Problem(bank.path, "", f"a module test pool needs at least {MODULE_TEST_MIN_POOL} "
                                                   f"items (own + included), has {size}"))
    return banks, problems


def _former_id_clashes(banks: dict[str, Bank]) -> list[Problem]:
    """A former id resolves to one bank only: not another bank's id, not listed by two banks."""
    problems, claimed = [], {}
    for bank in banks.values():
        for old in bank.formerly:
            if old in banks:
                problems.append(Problem(bank.path, "", f"former id {old!r} is the id of {banks[old].path}: "
                                                       "remove it from 'formerly' or rename that bank"))
            elif old in claimed:
                problems.append(Problem(bank.path, "", f"former id {old!r} is also listed by {claimed[old].path}: "
                                                       "an old id must lead to one bank; keep it in one 'formerly'"))
            else:
                claimed[old] = bank
    return problems


def resolve_bank(banks: dict[str, Bank], bank_id: str) -> Bank | None:
    """The bank with this id, or the one that lists it under 'formerly' (renamed banks keep answering
    to their old ids: released graded quizzes and commands written before the rename), else None."""
    if bank_id in banks:
        return banks[bank_id]
    return next((b for b in banks.values() if bank_id in b.formerly), None)


def pool(bank: Bank, banks: dict[str, Bank]) -> list[Item]:
    """The items a bank draws from: its own, then those of the lesson banks it includes."""
    items = list(bank.items)
    for other in bank.include:
        if other in banks:
            items += [it for it in banks[other].items if it.id not in {i.id for i in items}]
    return items


def load_all_banks(root: Path | str = "quizzes") -> dict[str, Bank]:
    """All banks under root keyed by id; raises BankError if any file or cross-reference is broken."""
    banks, problems = scan_banks(root)
    if problems:
        raise BankError(problems)
    return banks
