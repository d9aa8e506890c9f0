"""Small notebook chores: strip outputs before committing; write each lesson's "Next" link.

    python -m coursekit.app.nbtools strip course/ solutions/ labs/
    python -m coursekit.app.nbtools next    # the last cell of every lesson, from the course outline
"""
from __future__ import annotations

import sys
from pathlib import Path

import nbformat

from coursekit.app.kernel import LANGUAGE_INFO


def iter_notebooks(paths):
    for path in map(Path, paths):
        if path.is_dir():
            yield from sorted(p for p in path.rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts)
        else:
            yield path


# What JupyterLab writes when it opens a notebook on ipykernel's python3: a notebook committed with
# anything else ("Python 3") is modified, and asks to be saved, as soon as it is opened.
KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}


def strip_notebook(path: Path) -> bool:
    """Remove outputs, execution counts and volatile metadata, and set the kernelspec and
    language_info JupyterLab writes from the course's kernel; return True if the file changed."""
    before = path.read_text(encoding="utf-8")
    nb = nbformat.reads(before, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
        for key in ("execution", "collapsed", "scrolled"):
            cell.metadata.pop(key, None)
    nb.metadata.pop("widgets", None)
    nb.metadata["kernelspec"] = dict(KERNELSPEC)
    nb.metadata["language_info"] = dict(LANGUAGE_INFO)   # what the course's kernel reports
    after = nbformat.writes(nb) + "\n"
    if after != before:
        path.write_text(after, encoding="utf-8")
        return True
    return False


NEXT_TAG = "course-next"


def next_links(root: Path) -> dict[Path, str]:
    """Each lesson's "Next" text: the module's next lesson, or after its last lesson the lab (the
    learner's own copy) and the module test. Links are relative to the lesson's folder."""
    import os

    from coursekit.progress_report import course_outline, work_path

    def link(step, lesson) -> str:
        return os.path.relpath(root / work_path(step), (root / lesson.path).parent).replace(os.sep, "/")

    texts = {}
    for _, steps in course_outline(root):
        lessons = [s for s in steps if s.kind == "lesson"]
        after = [s for s in steps if s.kind != "lesson"]
        for i, lesson in enumerate(lessons):
            if i + 1 < len(lessons):
                text = f"**Next:** [{lessons[i + 1].title}]({link(lessons[i + 1], lesson)})"
            else:
                parts = [f"[{s.title}]({link(s, lesson)})" + (" in your own copy (`course work` makes it)"
                                                             if s.kind == "lab" else "") for s in after]
                text = "**Next:** " + ", then ".join(parts) if parts else "**Next:** back to the start page"
            texts[root / lesson.path] = text
    return texts


def set_next_cell(path: Path, text: str) -> bool:
    """Make the lesson's last cell the tagged "Next" markdown cell with `text`; True if the file changed."""
    before = path.read_text(encoding="utf-8")
    nb = nbformat.reads(before, as_version=4)
    nb.cells = [c for c in nb.cells if NEXT_TAG not in c.metadata.get("tags", [])]
    cell = nbformat.v4.new_markdown_cell(text, metadata={"tags": [NEXT_TAG]})
    cell["id"] = NEXT_TAG   # stable: regenerating leaves the file byte-identical
    nb.cells.append(cell)
    after = nbformat.writes(nb) + "\n"
    if after != before:
        path.write_text(after, encoding="utf-8")
        return True
    return False


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["next"]:
        from coursekit.paths import course_root

        changed = [p for p, text in next_links(course_root()).items() if set_next_cell(p, text)]
        for p in changed:
            print(f"wrote the Next link of {p}")
        return 0
    if not argv or argv[0] != "strip":
        print(__doc__.strip(), file=sys.stderr)
        return 2
    changed = [p for p in iter_notebooks(argv[1:] or ["course", "solutions", "labs"]) if strip_notebook(p)]
    for p in changed:
        print(f"stripped {p}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
