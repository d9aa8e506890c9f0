"""Which torch build `course.sh` installs, as extra pip arguments for the torch step.

PyPI's torch wheel for Linux is the CUDA build, with several GB of nvidia-* packages; a laptop
without an NVIDIA GPU only needs the CPU build from PyTorch's own index. macOS and Windows get a
CPU (or MPS) build from PyPI. COURSE_TORCH=cpu|cuda overrides the guess. Where pip already resolves
a CPU build without any index (a local wheel folder, as on the course's build machines), nothing is
added, so a machine that cannot reach the PyTorch index never waits on it.

course.sh runs this file with the new environment's Python before the course is installed, so it
uses the standard library only:
    python coursekit/app/torch_wheel.py constraints-cpu.txt   # prints the pip arguments, one per line
"""
from __future__ import annotations

import json
import os
import platform
import shutil
import subprocess
import sys
from pathlib import Path

CPU_INDEX = "https://download.pytorch.org/whl/cpu"
CHOICES = ("auto", "cpu", "cuda")


def torch_pip_args(system: str, has_nvidia_gpu: bool, choice: str, resolves_cpu_build: bool) -> tuple[list[str], str]:
    """(extra pip arguments, why) for installing torch on `system` (platform.system())."""
    choice = (choice or "auto").lower()
    if choice not in CHOICES:
        raise ValueError(f"COURSE_TORCH={choice!r}: use one of {', '.join(CHOICES)}")
    if choice == "cuda":
        return [], "CUDA build from PyPI (COURSE_TORCH=cuda)"
    if system != "Linux":
        return [], f"PyPI's build for {system} (CPU, or MPS on Apple silicon)"
    if choice == "auto" and has_nvidia_gpu:
        return [], "CUDA build from PyPI (an NVIDIA GPU is present; COURSE_TORCH=cpu for the CPU build)"
    why = "COURSE_TORCH=cpu" if choice == "cpu" else "Linux without an NVIDIA GPU; COURSE_TORCH=cuda for the CUDA build"
    if resolves_cpu_build:
        return [], f"CPU build, found by pip without an index ({why})"
    return ["--extra-index-url", CPU_INDEX], f"CPU build from {CPU_INDEX} ({why})"


def has_nvidia_gpu() -> bool:
    return bool(shutil.which("nvidia-smi")) or Path("/proc/driver/nvidia/version").exists()


def pinned_torch(constraints: Path) -> str:
    """The torch requirement in the constraints file, e.g. 'torch==2.13.0'."""
    for line in constraints.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line.startswith("torch") and line[5:6] in "=<>~!":
            return line
    return "torch"


def pip_resolves_cpu_build(requirement: str) -> bool:
    """True if pip, with its own configuration but no index, would install a +cpu torch wheel."""
    command = [sys.executable, "-m", "pip", "install", "--dry-run", "--no-index", "--no-deps", "--ignore-installed",
               "--quiet", "--report", "-", requirement]
    try:
        result = subprocess.run(command, capture_output=True, text=True, timeout=120)
        report = json.loads(result.stdout) if result.returncode == 0 else {}
    except (OSError, subprocess.TimeoutExpired, json.JSONDecodeError):
        return False
    versions = [item.get("metadata", {}).get("version", "") for item in report.get("install", [])]
    return any(v.endswith("+cpu") for v in versions)


def main(argv: list[str]) -> int:
    requirement = pinned_torch(Path(argv[0] if argv else "constraints-cpu.txt"))
    system, choice = platform.system(), os.environ.get("COURSE_TORCH", "auto")
    gpu = has_nvidia_gpu()
    # asking pip costs a few seconds: only where the answer changes what is installed
    local = system == "Linux" and choice.lower() != "cuda" and not (gpu and choice.lower() == "auto") \
        and pip_resolves_cpu_build(requirement)
    try:
        args, why = torch_pip_args(system, gpu, choice, local)
    except ValueError as exc:
        print(f"course.sh: {exc}", file=sys.stderr)
        return 2
    print(f"==> installing {requirement}: {why}", file=sys.stderr)
    print("\n".join(args))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
