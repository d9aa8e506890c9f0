"""coursekit.app.torch_wheel: the torch build course.sh installs. A Linux machine without an NVIDIA GPU
gets the CPU build (from PyTorch's CPU index, unless pip already finds one without an index, as on
this machine); a GPU or COURSE_TORCH=cuda gets PyPI's CUDA build; macOS and Windows get PyPI's."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from coursekit.app.torch_wheel import CPU_INDEX, pinned_torch, pip_resolves_cpu_build, torch_pip_args
from paths import ROOT

CPU_ARGS = ["--extra-index-url", CPU_INDEX]


@pytest.mark.parametrize("system, gpu, choice, local, args", [
    ("Linux", False, "auto", False, CPU_ARGS),     # an ordinary laptop: never the multi-GB CUDA build
    ("Linux", False, "", False, CPU_ARGS),
    ("Linux", False, "auto", True, []),           # a local +cpu wheel: no index to wait on
    ("Linux", True, "auto", False, []),           # an NVIDIA GPU: PyPI's CUDA build
    ("Linux", True, "cpu", False, CPU_ARGS),
    ("Linux", True, "CPU", True, []),
    ("Linux", False, "cuda", False, []),
    ("Darwin", False, "auto", False, []),         # macOS: PyPI's build has MPS
    ("Darwin", False, "cpu", False, []),
    ("Windows", True, "auto", False, []),
])
def test_the_build_each_machine_gets(system, gpu, choice, local, args):
    got, why = torch_pip_args(system, gpu, choice, local)
    assert got == args
    assert why.startswith("CPU build") == (system == "Linux" and choice.lower() != "cuda" and (not gpu or choice.lower() == "cpu"))


def test_an_unknown_choice_is_refused_with_the_choices():
    with pytest.raises(ValueError, match="COURSE_TORCH='gpu': use one of auto, cpu, cuda"):
        torch_pip_args("Linux", False, "gpu", False)


def test_the_pin_comes_from_the_constraints_file(tmp_path):
    assert pinned_torch(ROOT / "constraints-cpu.txt").startswith("torch==")
    constraints = tmp_path / "c.txt"
    constraints.write_text("# torch==1.0 in a comment\ntorchvision==0.1\ntorch>=2.1,<3  # pinned\n")
    assert pinned_torch(constraints) == "torch>=2.1,<3"


@pytest.mark.slow
def test_course_sh_step_on_this_machine_uses_the_local_cpu_wheel():
    """This machine's pip finds torch's +cpu wheel in a local folder: no index is added, so set-up
    never waits on one it cannot reach; a bad COURSE_TORCH stops set-up with a message."""
    requirement = pinned_torch(ROOT / "constraints-cpu.txt")
    if not pip_resolves_cpu_build(requirement):
        pytest.skip(f"pip here does not find a +cpu {requirement} without an index")
    env = {k: v for k, v in os.environ.items() if k != "COURSE_TORCH"}
    run = subprocess.run([sys.executable, "coursekit/app/torch_wheel.py", "constraints-cpu.txt"], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=180)
    assert run.returncode == 0 and run.stdout.strip() == "", run
    assert f"==> installing {requirement}: CPU build, found by pip without an index" in run.stderr
    bad = subprocess.run([sys.executable, "coursekit/app/torch_wheel.py"], cwd=ROOT, env={**env, "COURSE_TORCH": "gpu"},
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "COURSE_TORCH='gpu'" in bad.stderr
