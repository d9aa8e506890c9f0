"""Opening a committed notebook leaves it clean: its kernelspec is what JupyterLab would write for
the installed python3 kernel (a different display name is rewritten on open, and asks to be saved)."""
from __future__ import annotations

import json

import pytest
from jupyter_client.kernelspec import KernelSpecManager

from coursekit.app.nbtools import KERNELSPEC, strip_notebook
from paths import ROOT

NOTEBOOKS = sorted(p for folder in ("course", "labs", "solutions") for p in (ROOT / folder).rglob("*.ipynb")
                   if ".ipynb_checkpoints" not in p.parts)


def test_strip_writes_the_installed_kernels_spec(tmp_path):
    spec = KernelSpecManager().get_kernel_spec("python3")
    assert KERNELSPEC == {"display_name": spec.display_name, "language": spec.language, "name": "python3"}
    path = tmp_path / "old.ipynb"
    path.write_text(json.dumps({"cells": [], "nbformat": 4, "nbformat_minor": 5, "metadata": {
        "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}}}))
    assert strip_notebook(path) and json.loads(path.read_text())["metadata"]["kernelspec"] == KERNELSPEC


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: str(p.relative_to(ROOT)))
def test_committed_notebook_opens_clean(path):
    assert json.loads(path.read_text())["metadata"].get("kernelspec") == KERNELSPEC, \
        f"{path}: run python -m coursekit.app.nbtools strip {path.relative_to(ROOT)}"
