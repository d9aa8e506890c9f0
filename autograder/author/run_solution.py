"""Run a notebook whole with nbclient in a process of its own (`autograder validate`'s solution run).

    python -m autograder.author.run_solution NOTEBOOK OUT.ipynb CELL_TIMEOUT_S

A separate process, so that a kernel which dies under the run (nbclient then leaves a task and its
sockets behind, and the process never exits) cannot hang `validate`: the caller kills this one
and starts another. Exit 0: OUT holds the executed notebook; 3: a cell ran past its timeout; 4: the run
failed (the kernel died), with why on stderr.
"""
from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellTimeoutError

from coursekit.app.kernel_client import kernel_config


def main(notebook: str, out: str, timeout: str) -> int:
    path = Path(notebook)
    nb = nbformat.read(path, as_version=4)
    with tempfile.TemporaryDirectory(prefix="autograder-kernel-") as sockets:
        client = NotebookClient(nb, timeout=int(timeout), kernel_name="python3", allow_errors=True,
                                resources={"metadata": {"path": str(path.parent)}},
                                config=kernel_config(Path(sockets)))
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
    except Exception:                  # noqa: BLE001 - a dead kernel: say why, and leave
        traceback.print_exc()
        status = 4
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)                   # not a normal exit: after a kernel death it waits on nbclient forever
