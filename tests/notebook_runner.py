"""Execute a notebook headless with nbclient and say exactly which cell failed."""
from __future__ import annotations

import os
import re
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError, CellTimeoutError


class NotebookFailed(AssertionError):
    pass


def execute_notebook(path: Path, *, env: dict | None = None, timeout: int = 300,
                     allow_errors: bool = False) -> tuple[nbformat.NotebookNode, float]:
    """Run every cell with the notebook's folder as cwd; return the executed notebook and seconds."""
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(nb, timeout=timeout, kernel_name="python3", allow_errors=allow_errors,
                            resources={"metadata": {"path": str(path.parent)}})
    started: list[int] = []  # the last cell started is the one that failed, error or timeout alike
    client.on_cell_start = lambda cell, cell_index: started.append(cell_index)
    saved = dict(os.environ)
    os.environ.update({"MPLBACKEND": "Agg", **(env or {})})  # the kernel inherits this environment
    start = time.perf_counter()
    try:
        client.execute()
    except (CellExecutionError, CellTimeoutError) as exc:
        index = started[-1] if started else None
        # Counted from 1 over all cells, markdown included, as a reader counts them top to bottom.
        where = f"cell {index + 1} of {len(nb.cells)}" if index is not None else "a cell"
        source = nb.cells[index].source[:300] if index is not None else ""
        message = re.sub(r"\x1b\[[0-9;]*m", "", str(exc))  # tracebacks arrive coloured
        raise NotebookFailed(f"{path}: {where} failed:\n{source}\n---\n{message}") from None
    finally:
        os.environ.clear()
        os.environ.update(saved)
    return nb, time.perf_counter() - start
