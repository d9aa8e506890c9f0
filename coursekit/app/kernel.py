"""The Python kernel of the course's JupyterLab: ipykernel, reporting the language_info the course's
notebooks are committed with.

When a kernel connects, JupyterLab writes the kernel's language_info into the notebook and marks it
changed if it differs. ipykernel's includes the Python version (3.11.7, 3.12.1, ...), so every
lesson opened on a machine whose Python differs from the author's asked to be saved on close, and
autosave rewrote tracked files (a `git pull` conflict later). Notebooks record only
LANGUAGE_INFO (`python -m coursekit.app.nbtools strip` writes it) and `course start` serves the
python3 kernelspec below, whose kernel reports the same, so opening a notebook changes nothing.
"""
from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

from ipykernel.ipkernel import IPythonKernel

from coursekit.kernel_runs import record_path, write_record

LANGUAGE_INFO = {"name": "python"}
# a data folder on JUPYTER_PATH ahead of the environment's own, so its python3 kernelspec wins
DATA_DIR = Path(sys.prefix) / "share" / "llm-course" / "jupyter"


class CourseKernel(IPythonKernel):
    language_info = LANGUAGE_INFO

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        # what `course check` compares with the saved file: when this kernel last ran a cell
        connection = getattr(self.parent, "connection_file", "")
        self._runs = record_path(connection) if connection else None
        if self._runs is not None:
            try:
                write_record(self._runs, None)
                self.shell.events.register("post_run_cell", self._note_run)
            except OSError:
                self._runs = None   # a read-only runtime folder: checks fall back to the server's view

    def _note_run(self, result) -> None:
        info = getattr(result, "info", None)
        if info is not None and (info.silent or not info.store_history):
            return   # a front end's own silent request (widgets, completion helpers) is not the learner's run
        try:
            write_record(self._runs, time.time())
        except OSError:
            pass

    def do_shutdown(self, restart):
        if self._runs is not None and not restart:
            self._runs.unlink(missing_ok=True)
        return super().do_shutdown(restart)


def kernelspec() -> dict:
    return {"argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}",
                     f"--IPKernelApp.kernel_class={CourseKernel.__module__}.{CourseKernel.__name__}"],
            "display_name": "Python 3 (ipykernel)", "language": "python", "metadata": {"debugger": True}}


def kernel_env(environ: dict[str, str], data_dir: Path = DATA_DIR) -> dict[str, str]:
    """Write the python3 kernelspec under `data_dir` and return `environ` with it first on JUPYTER_PATH."""
    spec = data_dir / "kernels" / "python3" / "kernel.json"
    spec.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(kernelspec(), indent=1)
    if not spec.exists() or spec.read_text() != text:
        # whole or not at all: a JupyterLab starting beside this one (a second `course start`, a class's
        # servers) must never read a half-written spec and fall back to a kernel that dirties notebooks
        partial = spec.with_name(f".kernel.json.{os.getpid()}")
        partial.write_text(text)
        os.replace(partial, spec)
    env = dict(environ)
    rest = [p for p in env.get("JUPYTER_PATH", "").split(os.pathsep) if p and Path(p) != data_dir]
    env["JUPYTER_PATH"] = os.pathsep.join([str(data_dir), *rest])
    return env
