"""coursekit.app.kernel: the kernel `course start` serves reports the language_info the course's
notebooks are committed with, so JupyterLab changes nothing when it connects one to a lesson."""
from __future__ import annotations

import json

import nbformat
import pytest

from coursekit.app.kernel import LANGUAGE_INFO, kernel_env
from coursekit.app.nbtools import iter_notebooks, strip_notebook
from paths import ROOT


def test_kernel_env_puts_the_course_kernelspec_first(tmp_path):
    env = kernel_env({"JUPYTER_PATH": "/opt/site"}, tmp_path / "data")
    assert env["JUPYTER_PATH"].split(":") == [str(tmp_path / "data"), "/opt/site"]
    assert kernel_env(env, tmp_path / "data")["JUPYTER_PATH"] == env["JUPYTER_PATH"]   # not twice
    spec = json.loads((tmp_path / "data" / "kernels" / "python3" / "kernel.json").read_text())
    assert spec["display_name"] == "Python 3 (ipykernel)"
    assert "--IPKernelApp.kernel_class=coursekit.app.kernel.CourseKernel" in spec["argv"]


@pytest.mark.slow
def test_the_served_kernel_reports_what_the_notebooks_record(tmp_path, monkeypatch):
    from jupyter_client.manager import start_new_kernel

    monkeypatch.setenv("JUPYTER_PATH", kernel_env({}, tmp_path / "data")["JUPYTER_PATH"])
    manager, client = start_new_kernel(kernel_name="python3")
    try:
        reply = client.kernel_info(reply=True, timeout=60)   # what JupyterLab asks on connecting
        assert manager.kernel_spec.resource_dir.startswith(str(tmp_path))
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)
    assert reply["content"]["language_info"] == LANGUAGE_INFO
    recorded = {json.dumps(nbformat.read(p, as_version=4).metadata.get("language_info"))
                for p in iter_notebooks([ROOT / "course", ROOT / "labs", ROOT / "solutions"])}
    assert recorded == {json.dumps(LANGUAGE_INFO)}


def test_strip_writes_the_kernels_language_info(tmp_path):
    nb = nbformat.v4.new_notebook()
    nb.metadata["language_info"] = {"name": "python", "version": "3.12.1", "mimetype": "text/x-python"}
    path = tmp_path / "n.ipynb"
    nbformat.write(nb, path)
    assert strip_notebook(path)
    assert nbformat.read(path, as_version=4).metadata["language_info"] == LANGUAGE_INFO
