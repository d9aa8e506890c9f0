"""The course's outline, defined once in course/outline.yaml: its modules in order, each with its title,
its folder under course/ and its lab(s). The start page (coursekit/index.py), `course progress`
(coursekit/progress_report.py), the website (coursekit/app/site/build.py) and `course doctor` read it here.

Lessons are not listed: they are the numbered notebooks in a module's folder, so a new lesson needs
no edit. A lab's title is its notebook's first heading. `autograder new LAB --module mN` adds a lab
(add_lab below). A module with no folder yet has no lessons; with no lab either it is "in preparation".
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from .paths import course_root

OUTLINE = "course/outline.yaml"   # relative to the course root; in course/ because students read it
MODULE_ID = re.compile(r"^m\d+$")
LAB_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.@-]{0,99}$")    # autograder's ids (autograder/course.py)
KEYS = {"id", "title", "folder", "labs"}
QUIZ_META = "course_quiz"   # a released graded quiz's notebook metadata (autograder/quiz/assignment.py's META)
HEADER = ("# The course's outline: its modules in order, each with its title, its folder under course/ and its\n"
          "# graded lab(s). The start page (python -m coursekit.index), `course progress` and the website all\n"
          "# read this file (coursekit/outline.py). Lessons are not listed: they are the numbered notebooks in\n"
          "# a module's folder. A lab's title is its notebook's first heading. `autograder new LAB --module mN`\n"
          "# adds a lab here; `course doctor` says when this file and the folders disagree.\n")


class OutlineError(ValueError):
    """course/outline.yaml is missing, malformed, or names a folder that does not exist."""


def notebook_title(path: Path) -> str:
    import nbformat     # here, not at the top: `course check` files its progress through module_of

    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            match = re.search(r"^#+\s+(.+)$", cell.source, flags=re.MULTILINE)
            if match:
                return match.group(1).strip()
    return path.stem.replace("-", " ").capitalize()


@dataclass(frozen=True)
class Lesson:
    number: int
    path: Path

    @property
    def title(self) -> str:
        """The notebook's heading without its "Lesson N:" (the lists say "Lesson N" themselves)."""
        return re.sub(r"^Lesson \d+:\s*", "", notebook_title(self.path))


@dataclass(frozen=True)
class Lab:
    id: str
    notebook: Path   # the release, labs/<id>/<id>.ipynb: absent until `autograder generate` writes it

    @property
    def released(self) -> bool:
        return self.notebook.exists()

    @property
    def title(self) -> str:
        return notebook_title(self.notebook)


@dataclass(frozen=True)
class Module:
    id: str
    title: str
    folder: Path | None   # course/<folder>; None while the module has no lessons yet
    labs: tuple[Lab, ...]

    @property
    def number(self) -> str:
        return self.id[1:]

    @property
    def lessons(self) -> list[Lesson]:
        if self.folder is None:
            return []
        return [Lesson(int(p.name.split("-")[0]), p) for p in sorted(self.folder.glob("[0-9]*.ipynb"))]

    @property
    def test(self) -> Path | None:
        """The module test, course/<folder>/module-test.ipynb, if there is one."""
        test = self.folder / "module-test.ipynb" if self.folder else None
        return test if test and test.exists() else None


def _read(path: Path) -> list[dict]:
    """The file's modules as plain data, each checked; an OutlineError names the file and the problem."""
    import yaml

    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise OutlineError(f"{path} not found: the course outline (restore it with git checkout course)") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise OutlineError(f"{path}: cannot read it: {exc}") from None
    except yaml.YAMLError as exc:
        raise OutlineError(f"{path}: not valid YAML: {exc}") from None
    if not isinstance(data, dict) or set(data) != {"modules"} or not isinstance(data["modules"], list):
        raise OutlineError(f"{path}: expected one key, `modules:`, holding a list of modules")
    seen_modules, seen_labs = set(), {}
    for n, entry in enumerate(data["modules"], 1):
        where = f"{path}: module {n}"
        if not isinstance(entry, dict):
            raise OutlineError(f"{where}: expected a mapping with id, title, folder and labs, got {entry!r}")
        if set(entry) - KEYS or not {"id", "title"} <= set(entry):
            raise OutlineError(f"{where}: keys are id, title (both needed), folder and labs; found {sorted(entry)}")
        module_id = entry["id"]
        if not isinstance(module_id, str) or not MODULE_ID.match(module_id):
            raise OutlineError(f"{where}: id {module_id!r} is not m<number>, e.g. m6")
        where = f"{path}: module {module_id}"
        if module_id in seen_modules:
            raise OutlineError(f"{where}: listed twice")
        seen_modules.add(module_id)
        if not isinstance(entry["title"], str) or not entry["title"].strip():
            raise OutlineError(f"{where}: title must be a non-empty string, got {entry['title']!r}")
        folder = entry.get("folder")
        if folder is not None and (not isinstance(folder, str) or not folder.startswith(f"{module_id}-")
                                   or "/" in folder or "\\" in folder):
            raise OutlineError(f"{where}: folder {folder!r} must be one folder name under course/ "
                               f"starting with {module_id}-")
        labs = entry.get("labs", [])
        if not isinstance(labs, list) or not all(isinstance(lab, str) and LAB_ID.match(lab) for lab in labs):
            raise OutlineError(f"{where}: labs must be a list of lab ids (letters, digits, _ . @ -), got {labs!r}")
        for lab in labs:
            if lab in seen_labs:
                raise OutlineError(f"{where}: lab {lab} is already listed under module {seen_labs[lab]}")
            seen_labs[lab] = module_id
    return data["modules"]


def load_outline(root: Path | None = None) -> list[Module]:
    """The course's modules in order. Raises OutlineError for a malformed outline or a missing folder."""
    root = root or course_root()
    path = root / OUTLINE
    if not path.parent.is_dir():
        return []   # a course root without course/, e.g. an instructor's folder of labs (deploy/seed-home.sh)
    modules = []
    for entry in _read(path):
        folder = root / "course" / entry["folder"] if entry.get("folder") else None
        if folder is not None and not folder.is_dir():
            raise OutlineError(f"{path}: module {entry['id']}: its folder {folder} does not exist "
                               f"(create it, or correct `folder:`)")
        labs = tuple(Lab(lab, root / "labs" / lab / f"{lab}.ipynb") for lab in entry.get("labs", []))
        modules.append(Module(entry["id"], entry["title"].strip(), folder, labs))
    return modules


def lab_ids(root: Path | None = None) -> list[str]:
    return [lab.id for module in load_outline(root) for lab in module.labs]


def module_of(lab_id: str, root: Path | None = None) -> str | None:
    """The id of the module the outline lists `lab_id` under; None if it lists it nowhere."""
    return next((m.id for m in load_outline(root) for lab in m.labs if lab.id == lab_id), None)


def _folders(parent: Path) -> list[str]:
    return sorted(p.name for p in parent.iterdir() if p.is_dir() and p.name[0] not in "._") if parent.is_dir() else []


def _graded_quiz(root: Path, name: str) -> bool:
    """solutions/<name>/quiz.json, or a release whose notebook carries the quiz metadata
    (autograder/quiz/assignment.py: QUIZ_FILE, META); a student's copy has only the release."""
    if (root / "solutions" / name / "quiz.json").exists():
        return True
    try:
        return QUIZ_META in json.loads((root / "labs" / name / f"{name}.ipynb").read_text(encoding="utf-8"))["metadata"]
    except (OSError, ValueError, KeyError, TypeError):
        return False


def outline_problems(root: Path | None = None) -> list[str]:
    """Where the outline and the folders disagree: each course/mN-* folder, labs/<lab> and solutions/<lab>
    must be in the outline, and each lab it lists must have labs/<lab>/ or solutions/<lab>/ (a lab between
    `autograder new` and `generate` has only the latter; a student's copy of the course only the former).
    Graded quizzes (solutions/<quiz>/quiz.json, autograder/quiz) share those folders and are not labs."""
    root = root or course_root()
    if not (root / "course").is_dir():
        return [f"{root / 'course'} not found: no course outline to compare labs/ and solutions/ with"]
    try:
        modules = load_outline(root)
    except OutlineError as exc:
        return [str(exc)]
    folders = {m.folder.name for m in modules if m.folder}
    listed = {lab.id: m.id for m in modules for lab in m.labs}
    quizzes = {name for kind in ("labs", "solutions") for name in _folders(root / kind) if _graded_quiz(root, name)}
    problems = [f"course/{name} is not in {OUTLINE}: name it as a module's folder there"
                for name in _folders(root / "course") if re.match(r"^m\d+-", name) and name not in folders]
    for kind in ("labs", "solutions"):
        problems += [f"{kind}/{name} is not in {OUTLINE}: add it to its module's labs there "
                     f"(`autograder new --module` does for a new lab)"
                     for name in _folders(root / kind) if name not in listed and name not in quizzes]
    problems += [f"{OUTLINE} lists lab {lab} (module {module}), but neither labs/{lab}/ nor solutions/{lab}/ exists"
                 for lab, module in listed.items()
                 if not (root / "labs" / lab).is_dir() and not (root / "solutions" / lab).is_dir()]
    return problems


def _scalar(text: str) -> str:
    """A YAML scalar: plain where that reads back as the same string, else JSON's quoted form (valid YAML)."""
    plain = re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9 _.,()'/@-]*", text) and text.lower() not in {
        "yes", "no", "true", "false", "on", "off", "null", "y", "n"} and not re.fullmatch(r"[\d._e+-]+", text)
    return text if plain and text == text.strip() else json.dumps(text)


def render(entries: list[dict], header: str = HEADER) -> str:
    lines = [header.rstrip("\n"), "modules:"] if header else ["modules:"]
    for entry in entries:
        lines.append(f"  - id: {entry['id']}")
        lines.append(f"    title: {_scalar(entry['title'])}")
        if entry.get("folder"):
            lines.append(f"    folder: {_scalar(entry['folder'])}")
        lines.append(f"    labs: [{', '.join(entry.get('labs', []))}]")
    return "\n".join(lines) + "\n"


def add_lab(root: Path, lab: str, module: str, module_title: str | None = None) -> Path:
    """Record `lab` under `module` in root's outline (a new module at the end needs `module_title`; a
    course root without an outline gets one). Leaves the file as it is if the lab is there already;
    rewrites it in the layout above, keeping its leading comment. Returns the outline's path."""
    path = root / OUTLINE
    entries = [{**e, "labs": list(e.get("labs") or [])} for e in _read(path)] if path.exists() else []
    # the file's own leading comment stays; a new file gets the course's
    header = re.match(r"(?:#.*\n)*", path.read_text(encoding="utf-8")).group(0) if path.exists() else HEADER
    if not LAB_ID.match(lab):
        raise OutlineError(f"invalid lab id {lab!r}: use letters, digits and _ . @ -")
    if not MODULE_ID.match(module):
        raise OutlineError(f"invalid module {module!r}: use m<number>, e.g. m6")
    for entry in entries:
        if lab in entry.get("labs", []):
            if entry["id"] != module:
                raise OutlineError(f"{path}: lab {lab} is already listed under module {entry['id']}, not {module}")
            return path
    target = next((e for e in entries if e["id"] == module), None)
    if target is None:
        if not module_title or not module_title.strip():
            known = ", ".join(e["id"] for e in entries) or "none yet"
            raise OutlineError(f"{path}: there is no module {module} (modules: {known}); "
                               f"give --module-title to add it as a new module")
        target = {"id": module, "title": module_title.strip(), "labs": []}
        entries.append(target)
    elif module_title and module_title.strip() != target["title"]:
        raise OutlineError(f"{path}: module {module} is titled {target['title']!r} already, not {module_title!r}")
    target["labs"].append(lab)
    text = render(entries, header)
    if _read_text(text) != entries:     # the layout must read back as exactly what was meant
        raise OutlineError(f"{path}: cannot write the outline so that it reads back the same: edit it by hand")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _read_text(text: str) -> list[dict]:
    import yaml

    return [{**m, "labs": m.get("labs") or []} for m in yaml.safe_load(text)["modules"]]
