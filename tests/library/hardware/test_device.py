"""coursekit.device.pick_device: cuda, then mps, then cpu; COURSE_DEVICE / prefer override; one line said."""
from __future__ import annotations

import pytest
import torch

from coursekit.device import pick_device


@pytest.fixture
def machine(monkeypatch):
    """Pretend which accelerators exist; nothing here touches a real GPU."""
    monkeypatch.delenv("COURSE_DEVICE", raising=False)
    monkeypatch.setattr(torch.cuda, "current_device", lambda: 0)
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda index=None: "Fake GPU 80GB")

    def set_available(cuda: bool, mps: bool) -> None:
        monkeypatch.setattr(torch.cuda, "is_available", lambda: cuda)
        monkeypatch.setattr(torch.backends.mps, "is_available", lambda: mps)

    return set_available


@pytest.mark.parametrize("cuda, mps, expected", [(True, True, "cuda"), (True, False, "cuda"),
                                                 (False, True, "mps"), (False, False, "cpu")])
def test_order_is_cuda_then_mps_then_cpu(machine, cuda, mps, expected):
    machine(cuda=cuda, mps=mps)
    assert pick_device(verbose=False).type == expected


def test_course_device_and_prefer_override(machine, monkeypatch):
    machine(cuda=True, mps=True)
    monkeypatch.setenv("COURSE_DEVICE", "cpu")
    assert pick_device(verbose=False).type == "cpu"          # graders and tests force the CPU
    assert pick_device(verbose=False, prefer="mps").type == "mps"  # an explicit argument beats the env
    monkeypatch.delenv("COURSE_DEVICE")
    assert pick_device(verbose=False, prefer="cpu").type == "cpu"


@pytest.mark.parametrize("cuda, mps, line", [
    (True, False, "Labs will run on cuda:0 (Fake GPU 80GB)"),
    (False, True, "Labs will run on mps (Apple GPU)"),
    (False, False, "Labs will run on cpu ("),
])
def test_says_which_in_one_line(machine, capsys, cuda, mps, line):
    machine(cuda=cuda, mps=mps)
    pick_device()
    out = capsys.readouterr().out
    assert out.count("\n") == 1 and out.startswith(line), out
    if not cuda and not mps:
        assert "cores" in out


def test_quiet_when_not_verbose(machine, capsys):
    machine(cuda=False, mps=False)
    pick_device(verbose=False)
    assert capsys.readouterr().out == ""
