"""`course work`: each learner's own copy of the labs, in `work/` (ignored by git).

`labs/` is the course's release folder: `autograder generate` rewrites it and `git pull` updates it.
A learner who typed into it lost work to the one and got conflicts from the other. Work copies are
made once and never overwritten, so course updates and the learner's work never touch. Each copy
remembers which release it was made from (`work/<lab>/.released-from`, a hash), so a kept copy can
say that the released lab has changed since.
"""
from __future__ import annotations

import hashlib
import shutil
from dataclasses import dataclass
from pathlib import Path

from coursekit.paths import WORK_FOLDER

RELEASE_RECORD = ".released-from"


@dataclass(frozen=True)
class WorkCopy:
    lab_id: str
    notebook: Path   # the learner's notebook, work/<lab>/<lab>.ipynb
    made: bool       # False: it was there already and was kept as it is
    release_changed: bool = False   # kept, and labs/ holds a newer release than the one it was made from


def lab_ids(root: Path) -> list[str]:
    return sorted(p.parent.name for p in (root / "labs").glob("*/*.ipynb") if p.stem == p.parent.name)


def make_work_copies(root: Path, labs: list[str] | None = None) -> list[WorkCopy]:
    """Copy each lab's files that the learner does not have yet; an existing file is never replaced."""
    known = lab_ids(root)
    unknown = sorted(set(labs or []) - set(known))
    if unknown:
        raise ValueError(f"no lab named {', '.join(unknown)} under {root / 'labs'} (labs: {', '.join(known)})")
    copies = []
    for lab_id in labs or known:
        source, target = root / "labs" / lab_id, root / WORK_FOLDER / lab_id
        notebook = target / f"{lab_id}.ipynb"
        made = not notebook.exists()
        released = _digest(source / f"{lab_id}.ipynb")
        record = target / RELEASE_RECORD
        changed = not made and record.exists() and record.read_text().strip() != released
        for path in sorted(source.rglob("*")):
            if path.is_file() and ".ipynb_checkpoints" not in path.parts:
                copy = target / path.relative_to(source)
                if not copy.exists():
                    copy.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(path, copy)
        if made:
            record.write_text(released + "\n")
        copies.append(WorkCopy(lab_id, notebook, made, changed))
    return copies


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def describe(copies: list[WorkCopy], root: Path) -> str:
    lines = [f"{'made' if c.made else 'kept'}  {c.notebook.relative_to(root)}"
             + (f" (the released lab has changed since your copy was made: compare it with "
                f"labs/{c.lab_id}/{c.lab_id}.ipynb)" if c.release_changed else "") for c in copies]
    lines.append(f"Work in {WORK_FOLDER}/: course updates (git pull, autograder generate) change labs/ only, "
                 "never your copies. Check one with `course check work/<lab>/<lab>.ipynb`.")
    return "\n".join(lines)
