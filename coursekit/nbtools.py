"""Small notebook chores: strip outputs before committing.

    python -m coursekit.nbtools strip course/ solutions/ labs/
"""
from __future__ import annotations

import sys
from pathlib import Path

import nbformat

from .kernel import LANGUAGE_INFO


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


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] != "strip":
        print(__doc__.strip(), file=sys.stderr)
        return 2
    changed = [p for p in iter_notebooks(argv[1:] or ["course", "solutions", "labs"]) if strip_notebook(p)]
    for p in changed:
        print(f"stripped {p}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
