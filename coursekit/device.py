"""Pick the device the labs run on: CUDA first, then Apple MPS, then CPU."""
from __future__ import annotations

import os


def describe_device(device=None) -> str:
    """One line naming the device, e.g. 'cuda:0 (NVIDIA H100 80GB HBM3)' or 'cpu (2 cores)'."""
    import torch

    device = torch.device(device) if device is not None else pick_device(verbose=False)
    if device.type == "cuda":
        index = device.index if device.index is not None else torch.cuda.current_device()
        return f"cuda:{index} ({torch.cuda.get_device_name(index)})"
    if device.type == "mps":
        return "mps (Apple GPU)"
    return f"cpu ({os.cpu_count()} cores, {torch.get_num_threads()} torch threads)"


def pick_device(verbose: bool = True, prefer: str | None = None):
    """Return the best available torch.device and, if verbose, say which in one line.

    `prefer` (or the COURSE_DEVICE environment variable) forces a choice such as "cpu", which is
    how graders and tests keep results comparable across machines.
    """
    import torch

    choice = prefer or os.environ.get("COURSE_DEVICE")
    if choice:
        device = torch.device(choice)
    elif torch.cuda.is_available():
        device = torch.device("cuda")
    elif getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available():
        device = torch.device("mps")
    else:
        device = torch.device("cpu")
    if verbose:
        print(f"Labs will run on {describe_device(device)}")
    return device


def synchronize(device) -> None:
    """Wait for queued GPU work so wall-clock timings measure the work, not its launch."""
    import torch

    device = torch.device(device)
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    elif device.type == "mps":
        torch.mps.synchronize()
