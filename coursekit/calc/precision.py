"""Number formats of training: what FP8 can represent, and why it needs a scaling factor per tensor.

FP8 formats (Micikevicius et al. 2022, "FP8 Formats for Deep Learning", arXiv:2209.05433): E4M3
(max 448) for weights and activations, E5M2 (max 57,344) for gradients. The Transformer Engine
library scales each tensor by amax-derived factors before casting ("delayed scaling": the factor
comes from the maxima of recent iterations), so the values use the format's range instead of
underflowing. Ranges below come from torch.finfo, i.e. from the formats themselves.
"""
from __future__ import annotations

import torch

FORMATS = {"FP32": torch.float32, "BF16": torch.bfloat16, "FP16": torch.float16,
           "FP8 E4M3": torch.float8_e4m3fn, "FP8 E5M2": torch.float8_e5m2}


def format_range(name: str) -> dict:
    """Largest value, smallest normal value and bits of a format."""
    info = torch.finfo(FORMATS[name])
    return {"max": float(info.max), "smallest_normal": float(info.smallest_normal), "bits": info.bits}


def fp8_cast(x: torch.Tensor, fmt: str = "FP8 E4M3", scaled: bool = True) -> dict:
    """Round-trip x through FP8, with or without a per-tensor scale max/amax; report what was lost."""
    dtype = FORMATS[fmt]
    scale = torch.finfo(dtype).max / x.abs().max().clamp(min=1e-30) if scaled else torch.tensor(1.0)
    back = (x * scale).to(dtype).float() / scale
    nonzero = x != 0
    rel = ((back - x).abs() / x.abs())[nonzero]
    return {"scale": float(scale), "underflow_share": float(((back == 0) & nonzero).float().mean()),
            "median_rel_error": float(rel.median()), "values": back}


def format_max(name: str) -> float:
    return format_range(name)["max"]


def _training_chip(name: str):
    from coursekit import hardware

    chips = {c.name: c for c in hardware.TRAINING_CHIPS}
    if name not in chips:
        raise KeyError(f"coursekit/calc/precision.py: no training chip named {name!r} (known: {', '.join(chips)})")
    return chips[name]


def peak_ratio(new: str, old: str, fmt: str = "BF16", sparse_new: bool = False) -> float:
    """Dense peak of `new` in fmt ("BF16" or "FP8") over the dense BF16 peak of `old` (datasheet figures)."""
    chip = _training_chip(new)
    peak = chip.fp8_tflops if fmt == "FP8" else chip.bf16_tflops
    if peak is None:
        raise ValueError(f"coursekit/calc/precision.py: {new} has no {fmt} tensor-core rate")
    return peak * (2 if sparse_new else 1) / _training_chip(old).bf16_tflops
