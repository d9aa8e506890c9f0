"""`course doctor`: check that everything the course needs is installed, enabled and readable.

Each check returns (ok, what was found, how to fix it). The command prints every result and exits
non-zero if any check failed, so a student can paste its output into a help request.
"""
from __future__ import annotations

import json
import os
import platform
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion

from coursekit.paths import START_PAGE, course_root

SETUP_FIX = "run ./course.sh start (it installs everything into .venv)"
PROJECT = "llm-train-vs-infer-course"   # this course's distribution; its metadata holds pyproject's ranges
CHECKED_PACKAGES = ("jupyterlab", "nbgrader", "ipywidgets")
LAB_EXTENSIONS = {"@jupyter/nbgrader": "nbgrader lab extension",
                  "@jupyter-widgets/jupyterlab-manager": "widgets manager (lab extension)"}


@dataclass
class Check:
    name: str
    ok: bool
    detail: str
    fix: str = ""


def _version(dist: str) -> str | None:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def check_python() -> Check:
    version = platform.python_version()
    ok = sys.version_info >= (3, 10)
    return Check("Python", ok, f"{version} at {sys.executable}", "" if ok else "install Python 3.11 and rerun ./course.sh start")


def check_torch() -> Check:
    try:
        import torch

        from coursekit.device import describe_device, pick_device

        device = pick_device(verbose=False)
        return Check("PyTorch", True, f"{torch.__version__}; labs will run on {describe_device(device)}")
    except Exception as exc:  # noqa: BLE001 - an import failure is the finding, whatever its type
        return Check("PyTorch", False, f"cannot import torch: {exc}", SETUP_FIX)


def required_ranges() -> dict[str, SpecifierSet]:
    """Version ranges from the installed course's own metadata, i.e. pyproject.toml: one source of truth."""
    ranges = {}
    for line in metadata.requires(PROJECT) or []:
        req = Requirement(line)
        if req.marker is None:  # extras such as the test tools are not the student's concern
            ranges[canonicalize_name(req.name)] = req.specifier
    return ranges


def check_packages() -> list[Check]:
    try:
        ranges = required_ranges()
    except metadata.PackageNotFoundError:
        return [Check("course package", False, f"{PROJECT} is not installed in {sys.executable}", SETUP_FIX)]
    checks = []
    for dist in CHECKED_PACKAGES:
        found, wanted = _version(dist), ranges.get(dist, SpecifierSet())
        try:
            ok = found is not None and wanted.contains(found, prereleases=True)
        except InvalidVersion:
            ok = False
        needs = ",".join(sorted(map(str, wanted), key=lambda spec: spec.startswith("<")))  # ">=0.9.6,<0.10"
        detail = f"{found or 'not installed'} (needs {needs})"
        fix = "" if ok else f".venv/bin/pip install '{dist}{needs}' (or rerun ./course.sh start)"
        checks.append(Check(dist, ok, detail, fix))
    return checks


def _jupyter(*args: str) -> str:
    """Output (stdout+stderr, colours removed) of `jupyter ...` run with this interpreter."""
    from coursekit.app.modes import without_mode_config  # a student-mode terminal hides instructor tools on purpose

    result = subprocess.run([sys.executable, "-m", "jupyter", *args], capture_output=True, text=True, timeout=60,
                            env=without_mode_config(dict(os.environ)))
    return re.sub(r"\x1b\[[0-9;]*m", "", result.stdout + result.stderr)


def _disabled(listing: str) -> list[str]:
    """Names under 'Disabled extensions:' in `jupyter labextension list`: whole extensions, or single
    plugins as 'extension:plugin' (a page_config.json entry can switch off one plugin only)."""
    _, found, rest = listing.partition("Disabled extensions:")
    names = []
    for line in rest.splitlines()[1:] if found else []:
        if not line.startswith("    "):
            break
        names.append(line.split()[0])
    return names


def check_lab_extensions() -> list[Check]:
    listing = _jupyter("labextension", "list")
    disabled = _disabled(listing)
    checks = []
    for name, label in LAB_EXTENSIONS.items():
        line = next((l for l in listing.splitlines() if name in l), "")  # listed before the disabled ones
        off = [d for d in disabled if d == name or d.startswith(name + ":")]
        if not line:
            checks.append(Check(label, False, "not installed", SETUP_FIX))
        elif "disabled" in line.split() or name in off:
            checks.append(Check(label, False, "installed but disabled", f"jupyter labextension enable {name}"))
        elif off:
            checks.append(Check(label, False, f"plugin{'s' if len(off) > 1 else ''} disabled: {', '.join(off)}",
                                "; ".join(f"jupyter labextension enable {d}" for d in off)))
        else:
            checks.append(Check(label, True, " ".join(line.split())))
    return checks


def check_server_extension() -> Check:
    listing = _jupyter("server", "extension", "list")
    lines = [l for l in listing.splitlines() if l.strip().startswith("nbgrader")]
    if not lines:
        return Check("nbgrader server extension", False, "not found", SETUP_FIX)
    if any("disabled" in l for l in lines):
        return Check("nbgrader server extension", False, "disabled", "jupyter server extension enable nbgrader")
    return Check("nbgrader server extension", True, "enabled")


def _notebooks(name: str, folder: Path, pattern: str, noun: str, restore: str) -> Check:
    found = sorted(folder.glob(pattern)) if folder.is_dir() else []
    if not found:
        return Check(name, False, f"no {noun} under {folder}", restore)
    unreadable = [p for p in found if not os.access(p, os.R_OK)]
    if unreadable:
        return Check(name, False, f"unreadable: {', '.join(map(str, unreadable[:3]))}", "fix the permissions (chmod u+r)")
    return Check(name, True, f"{len(found)} {noun} under {folder}")


def check_course_files(root: Path) -> Check:
    start = root / START_PAGE
    try:
        json.loads(start.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return Check("course files", False, f"{start} not found", "run the course from its repository (or set COURSE_ROOT to it)")
    except (OSError, ValueError) as exc:
        return Check("course files", False, f"cannot read {start}: {exc}", f"check permissions of {root / 'course'} or restore it with git checkout")
    return _notebooks("course files", root / "course", "m*/*.ipynb", "lesson notebooks", "restore course/ with git checkout")


def check_labs(root: Path) -> Check:
    return _notebooks("lab notebooks", root / "labs", "*/*.ipynb", "lab notebooks", "restore labs/ with git checkout labs")


def check_outline(root: Path) -> Check:
    """course/outline.yaml reads and agrees with the folders: every module folder and lab is in it, and back."""
    from coursekit.outline import OUTLINE, load_outline, outline_problems

    problems = outline_problems(root)
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        return Check("course outline", False, f"{problems[0]}{more}",
                     f"make {root / OUTLINE} and the folders agree (restore both with git checkout course labs)")
    modules = load_outline(root)
    labs = sum(len(m.labs) for m in modules)
    return Check("course outline", True, f"{len(modules)} modules and {labs} labs in {root / OUTLINE}, as in the folders")


def check_banks(root: Path) -> Check:
    """The banks load and pass their self-test: the quiz widgets refuse a bank that does not."""
    folder = root / "quizzes"
    if not folder.is_dir():
        return Check("question banks", False, f"{folder} not found", "restore quizzes/ with git checkout quizzes")
    from coursekit.quiz.bank import bank_files
    from coursekit.quiz.selftest import check_banks as bank_check

    problems = bank_check(folder)
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        return Check("question banks", False, f"{problems[0]}{more}", "run `course quiz check` to list every problem")
    return Check("question banks", True, f"{len(bank_files(folder))} banks under {folder} load and pass their self-test")


def check_exercises(folder: Path | None = None) -> Check:
    """Every lesson's exercise file loads and computes its answers (the exercise cells refuse one that does not)."""
    from coursekit.exercises.bank import FOLDER, ExerciseError, load_file

    folder = folder or FOLDER
    files, problems, count = sorted(folder.glob("*.yaml")), [], 0
    for path in files:
        try:
            count += len(load_file(path))
        except ExerciseError as exc:
            problems.append(str(exc))
    if not files:
        return Check("lesson exercises", False, f"no exercise files in {folder}", "restore them with git checkout coursekit")
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        return Check("lesson exercises", False, f"{problems[0]}{more}", "fix the file named (format in coursekit/exercises/bank.py)")
    return Check("lesson exercises", True, f"{count} exercises in {len(files)} lesson files load and compute their answers")


def check_prices() -> Check:
    """Dated prices older than 12 months, by file and entry: not a broken install (ok stays True), but what
    a maintainer updates so lessons do not compute with stale prices unawares."""
    from coursekit import prices

    stale = sorted(prices.stale_entries(), key=lambda p: prices.entry_date(p.date))
    if not stale:
        return Check("price table", True, f"every entry in {prices.FILE} is less than 12 months old")
    listed = ", ".join(f"{prices.entry_name(p)} ({p.date})" for p in stale)
    return Check("price table", True, f"{len(stale)} of {len(prices.all_entries())} entries in {prices.FILE} are "
                                      f"older than 12 months, due for a refresh: {listed}")


def _progress_dir() -> Path:
    try:
        from coursekit.progress import store_path

        return Path(store_path()).parent
    except ImportError:  # progress store not available in this checkout
        return Path(os.environ.get("COURSE_PROGRESS_DIR", Path.home() / ".course-progress"))


def check_progress_writable() -> Check:
    folder = _progress_dir()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".doctor-", delete=True) as handle:
            handle.write(b"ok")
            handle.flush()
    except OSError as exc:
        return Check("progress store", False, f"{folder} is not writable: {exc.strerror or exc}",
                     "set COURSE_PROGRESS_DIR to a writable folder, or fix that folder's permissions")
    return Check("progress store", True, f"{folder} is writable")


def check_terminal_commands() -> Check:
    """`course` and `autograder` resolve, to this environment, in a terminal `course start` opens."""
    from coursekit.app.terminal import resolve_in_terminal, outside_shell_hint, scripts_dir

    try:
        found = resolve_in_terminal()
    except (OSError, subprocess.SubprocessError) as exc:
        return Check("terminal commands", False, f"cannot run the terminal's shell: {exc}", "set SHELL to a working shell")
    scripts = scripts_dir()
    wrong = {name: where for name, where in found.items() if where is None or Path(where).parent != scripts}
    if wrong:
        detail = ", ".join(f"{name} -> {where or 'not found'}" for name, where in wrong.items())
        return Check("terminal commands", False, f"{detail} in a course terminal (expected {scripts})",
                     "reinstall with ./course.sh start; check that your shell's rc file does not reset PATH")
    return Check("terminal commands", True, f"{', '.join(found)} found in {scripts}; {outside_shell_hint()}")


def check_steps(root: Path) -> list:
    """Each step returns one Check or a list of them; main() prints each as soon as it is known."""
    return [check_python, check_torch, check_packages, check_lab_extensions, check_server_extension,
            check_terminal_commands, lambda: check_course_files(root), lambda: check_outline(root),
            lambda: check_labs(root),
            lambda: check_banks(root), lambda: check_exercises(), check_prices, check_progress_writable]


def iter_checks(root: Path | None = None):
    root = root or course_root()
    for step in check_steps(root):
        found = step()
        yield from (found if isinstance(found, list) else [found])


def run_checks(root: Path | None = None) -> list[Check]:
    return list(iter_checks(root))


WIDTH = 32  # the longest check name, so the columns line up while results stream in


def main(root: Path | None = None) -> int:
    print("Checking the course's installation (torch, JupyterLab and the question banks take a while)...",
          flush=True)
    checks = []
    for c in iter_checks(root):   # printed one by one: the slow ones no longer leave the screen blank
        checks.append(c)
        print(f"{'ok ' if c.ok else 'BAD'}  {c.name:<{WIDTH}}  {c.detail}", flush=True)
        if not c.ok:
            print(f"     {'':<{WIDTH}}  fix: {c.fix}", flush=True)
    failed = [c for c in checks if not c.ok]
    print(f"\n{len(checks) - len(failed)} of {len(checks)} checks passed." if failed else f"\nAll {len(checks)} checks passed.")
    return 1 if failed else 0
