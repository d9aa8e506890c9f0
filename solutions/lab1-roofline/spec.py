"""Spec of Lab 1 (roofline math): visible cases with teaching hints, and random hidden cases.

Visible `expected` values are computed by the course's own formulas in coursekit.calc, and the test
suite checks that they equal the solution notebook's reference on every case.
"""
from __future__ import annotations

import random

from autograder.spec import Case, LabSpec, Task
from coursekit.calc import memory, roofline
from coursekit.hardware import A100_SXM_80GB, ALL_CHIPS, H100_SXM, L40S
from coursekit.model_configs import LLAMA2_7B, MISTRAL_7B, ModelConfig

LAB = "lab1-roofline"
SHAPE_KEYS = ("n_layers", "d_model", "n_heads", "n_kv_heads", "head_dim", "d_ff", "vocab_size")
STEP_KEYS = ("flops", "weight_bytes", "kv_bytes", "activation_bytes", "seconds")
CHIPS = tuple(ALL_CHIPS)   # hidden cases draw from the whole table, 2020 to 2026, HBM and SRAM alike


def shape(config: ModelConfig) -> dict:
    return {key: getattr(config, key) for key in SHAPE_KEYS}


def as_config(model: dict) -> ModelConfig:
    return ModelConfig("lab model", 0.0, max_context=1, **model)


def ceilings(chip) -> tuple[float, float]:
    return roofline.chip_ceilings(chip)


TINY = {"n_layers": 1, "d_model": 2, "n_heads": 1, "n_kv_heads": 1, "head_dim": 2, "d_ff": 4, "vocab_size": 8}


def step_expected(kind: str, model: dict, batch: int, tokens: int, peak: float, bandwidth: float,
                  element: float) -> dict:
    fn = roofline.decode_step if kind == "decode" else roofline.prefill
    full = fn(as_config(model), batch, tokens, peak, bandwidth, element)
    return {key: full[key] for key in STEP_KEYS}


# --- visible cases -------------------------------------------------------------------------------

def _intensity_visible():
    rows = [
        ("square 4096 matmul in BF16", (4096, 4096, 4096, 2),
         "FLOPs = 2*m*k*n; bytes = (m*k + k*n + m*n) * bytes_per_element: read A and B, write C."),
        ("decode: one token through a 4096 x 11008 FFN weight, BF16", (1, 4096, 11008, 2),
         "With m = 1 this is a matrix-vector product: the weight's k*n elements dominate the bytes."),
        ("tall-skinny 8192 x 64 @ 64 x 8192 in FP32", (8192, 64, 8192, 4),
         "The output C (m*n elements) is written once and counts toward the bytes too."),
    ]
    return tuple(Case(name, args=args, hint=hint, expected=roofline.matmul_intensity(*args)) for name, args, hint in rows)


def _chip_cases(fn, hint):
    return tuple(Case(chip.name, args=ceilings(chip), hint=hint, expected=fn(*ceilings(chip)))
                 for chip in (H100_SXM, A100_SXM_80GB, L40S))


def _attainable_visible():
    peak, bw = ceilings(H100_SXM)
    rows = [(1.0, "batch-1 decode intensity: far below the ridge, the slanted part (bandwidth * intensity)"),
            (295.0, "just below the H100 ridge point: still the slanted part, but nearly at the roof"),
            (1000.0, "above the ridge point the roof (peak_flops) caps it")]
    return tuple(Case(f"H100 SXM at {i:g} FLOP/byte", args=(i, peak, bw), hint=h,
                      expected=roofline.attainable_flops(i, peak, bw)) for i, h in rows)


def _classify_visible():
    rows = [(1.0, H100_SXM, "1 FLOP/byte is far below any datacenter GPU's ridge point"),
            (400.0, H100_SXM, "400 is above the H100's ridge point (989e12 / 3.35e12)"),
            (200.0, A100_SXM_80GB, "200 is above the A100's ridge point (312e12 / 2.039e12)"),
            (A100_SXM_80GB.ridge_point, A100_SXM_80GB, "exactly at the ridge counts as compute-bound")]
    return tuple(Case(f"{i:.4g} FLOP/byte on {chip.name}", args=(i, *ceilings(chip)), hint=h,
                      expected=roofline.classify(i, *ceilings(chip))) for i, chip, h in rows)


def _step_visible(kind: str):
    hint_common = ("Check each key: flops counts 2*k*n per weight matrix per token plus attention; "
                   "weight_bytes are read once per pass; seconds = max(flops/peak, all bytes/bandwidth).")
    tokens_word = "context" if kind == "decode" else "prompt"
    rows = [
        (f"tiny model, batch 1, {tokens_word} 3", (TINY, 1, 3, 1e3, 1e2, 2),
         "Work this one by hand: weight params = 1*(2*2 + 2*2 + 2*2 + 2*2) + 3*2*4 + 2*8 = 56."),
        (f"Llama 2 7B, batch 1, {tokens_word} 2048, H100, BF16", (shape(LLAMA2_7B), 1, 2048, *ceilings(H100_SXM), 2),
         hint_common),
        (f"Mistral 7B (GQA), batch 64, {tokens_word} 4096, A100, BF16",
         (shape(MISTRAL_7B), 64, 4096, *ceilings(A100_SXM_80GB), 2),
         "KV bytes use n_kv_heads (8 here), attention FLOPs use n_heads (32): grouped-query attention "
         "shares each key/value head among 4 query heads."),
    ]
    return tuple(Case(name, args=args, hint=hint, expected=step_expected(kind, *args)) for name, args, hint in rows)


def _bpp_visible():
    rows = [("training", 2, "adamw", True, "Mixed-precision AdamW: 2 (weights) + 2 (grads) + 4 (FP32 master) + 8 (two FP32 moments)."),
            ("inference", 2, "adamw", True, "Inference keeps only the weights; the optimizer choice does not matter."),
            ("training", 4, "adamw", True, "FP32 training needs no separate master copy: the weights already are FP32."),
            ("training", 2, "sgd-momentum", False, "One FP32 momentum buffer, no master copy: 2 + 2 + 4."),
            ("inference", 0.5, "sgd", False, "4-bit weights take half a byte.")]
    return tuple(Case(f"{p}, {w}-byte weights, {o}, master={m}", args=(p, w, o, m), hint=h,
                      expected=memory.bytes_per_param(p, w, o, m)) for p, w, o, m, h in rows)


# --- hidden cases --------------------------------------------------------------------------------

def _intensity_hidden(rng: random.Random) -> Case:
    m, k, n = (rng.choice([1, 2, 8, 64, 512, 4096, rng.randint(1, 16384)]) for _ in range(3))
    return Case("random matmul", args=(m, k, n, rng.choice([0.5, 1, 2, 4])))


def _ceilings_hidden(rng: random.Random) -> tuple[float, float]:
    return rng.uniform(10, 2000) * 1e12, rng.uniform(0.1, 8) * 1e12


def _ridge_hidden(rng):
    return Case("random chip", args=_ceilings_hidden(rng))


def _attainable_hidden(rng):
    return Case("random chip and intensity", args=(rng.uniform(0.1, 3000), *_ceilings_hidden(rng)))


def _classify_hidden(rng):
    peak, bw = _ceilings_hidden(rng)
    intensity = (peak / bw) * rng.choice([0.1, 0.5, 0.99, 1.01, 2.0, 10.0])
    return Case("random chip, intensity near its ridge", args=(intensity, peak, bw))


def _random_model(rng: random.Random) -> dict:
    heads = rng.choice([1, 2, 4, 8, 16, 32, 64])
    head_dim = rng.choice([16, 32, 64, 128])
    return {"n_layers": rng.randint(1, 96), "d_model": heads * head_dim, "n_heads": heads,
            "n_kv_heads": rng.choice([h for h in (1, 2, 4, 8, 16, 32, 64) if heads % h == 0]),
            "head_dim": head_dim, "d_ff": rng.randint(1, 64) * 256, "vocab_size": rng.randint(1000, 160000)}


def _step_hidden(rng: random.Random) -> Case:
    chip = rng.choice(CHIPS)
    return Case(f"random model on {chip.name}",
                args=(_random_model(rng), rng.randint(1, 512), rng.randint(1, 32768), *ceilings(chip),
                      rng.choice([1, 2, 4])))


def _bpp_hidden(rng: random.Random) -> Case:
    return Case("random choices", args=(rng.choice(["training", "inference"]), rng.choice([0.5, 1, 2, 4]),
                                        rng.choice(sorted(memory.OPTIMIZER_STATES)), rng.choice([True, False])))


# Wrong-but-plausible answers `autograder validate` proves the cases catch (docs/AUTHORING.md).
WRONG_INTENSITY = ("def matmul_intensity(m, k, n, bytes_per_element):\n"
                   "    return 2 * m * k * n / ((m * k + k * n) * bytes_per_element)",)   # forgot writing C
WRONG_ATTAINABLE = ("def attainable_flops(intensity, peak_flops, bandwidth):\n"
                    "    return bandwidth * intensity",)                                    # no roof
WRONG_CLASSIFY = ("def classify(intensity, peak_flops, bandwidth):\n"
                  "    return 'compute-bound' if intensity > peak_flops / bandwidth else 'bandwidth-bound'",)  # ridge itself

SPEC = LabSpec(
    lab_id=LAB,
    notebook="lab1-roofline.ipynb",
    tasks=(
        Task("test_intensity", "Task (arithmetic intensity)", 2, "matmul_intensity",
             visible=_intensity_visible(), hidden=_intensity_hidden, wrong=WRONG_INTENSITY),
        Task("test_ridge", "Task (ridge point)", 1, "ridge_point",
             visible=_chip_cases(roofline.ridge_point, "ridge point = peak FLOP/s divided by bytes/s"),
             hidden=_ridge_hidden),
        Task("test_attainable", "Task (attainable FLOP/s)", 1, "attainable_flops",
             visible=_attainable_visible(), hidden=_attainable_hidden, wrong=WRONG_ATTAINABLE),
        Task("test_classify", "Task (classification)", 1, "classify",
             visible=_classify_visible(), hidden=_classify_hidden, n_hidden=8, wrong=WRONG_CLASSIFY),
        Task("test_decode", "Task (decode step)", 3, "decode_step",
             visible=_step_visible("decode"), hidden=_step_hidden),
        Task("test_prefill", "Task (prefill)", 2, "prefill",
             visible=_step_visible("prefill"), hidden=_step_hidden),
        Task("test_bpp", "Task (bytes per parameter)", 2, "bytes_per_param",
             visible=_bpp_visible(), hidden=_bpp_hidden, n_hidden=8),
    ),
)
