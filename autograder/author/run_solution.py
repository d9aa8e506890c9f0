"""Run a notebook whole with nbclient in a process of its own (`autograder validate`'s solution run).

    python -m autograder.author.run_solution NOTEBOOK OUT.ipynb CELL_TIMEOUT_S

A separate process, so that a kernel which dies under a busy machine (nbclient then leaves a task and
its sockets behind, and the process never exits) cannot hang `validate`: the caller kills this one
and starts another. Exit 0: OUT holds the executed notebook; 3: a cell ran past its timeout; 4: the run
failed (the kernel died), with why on stderr.

OUT and OUT.done (the seconds to the end of the last cell) are written as soon as the last code cell has
run, before nbclient shuts the kernel down: on a busy machine that clean-up has been seen to stall for a
minute or for good after every cell had run (Lab 4's solution: 3 to 4 runs in 8 beside busy loops), and
the caller then takes the finished notebook instead of running it again.
"""
from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellTimeoutError

from coursekit.app.site.execute import kernel_transport


def main(notebook: str, out: str, timeout: str) -> int:
    path = Path(notebook)
    nb = nbformat.read(path, as_version=4)
    last = max((i for i, cell in enumerate(nb.cells) if cell.cell_type == "code"), default=None)
    start = time.perf_counter()

    def finished(cell_index: int, **_) -> None:
        if cell_index == last:
            nbformat.write(nb, out)
            Path(f"{out}.done").write_text(f"{time.perf_counter() - start:.3f}\n")

    with tempfile.TemporaryDirectory(prefix="autograder-kernel-") as sockets:
        client = NotebookClient(nb, timeout=int(timeout), kernel_name="python3", allow_errors=True,
                                resources={"metadata": {"path": str(path.parent)}},
                                config=kernel_transport(Path(sockets)), on_cell_executed=finished)
        try:
            client.execute()
        except CellTimeoutError:
            nbformat.write(nb, out)
            return 3
    nbformat.write(nb, out)
    return 0


if __name__ == "__main__":
    import os
    import traceback

    try:
        status = main(*sys.argv[1:4])
    except Exception:                  # a dead kernel: say why, and leave
        traceback.print_exc()
        status = 4
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)                   # not a normal exit: after a kernel death it waits on nbclient forever
