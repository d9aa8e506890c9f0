"""Module 3 lessons: the numbers their prose states match coursekit, as Modules 1 and 5 check theirs.

Executing the notebooks is tests/content/test_notebooks.py's job; here each test quotes the sentence it pins, so
a change to a chip spec or a model shape that makes the prose wrong fails here.
"""
from __future__ import annotations

import pytest

from coursekit import hardware
from coursekit.calc import chips, kvcache, roofline
from coursekit.model_configs import LLAMA2_70B, LLAMA31_70B
from lesson_text import Lessons

M3 = Lessons("m3-inference-chips")
LESSONS = ["01-design-axes-and-chips", "02-kv-cache", "03-serving-co-design"]
HBM_OR_GDDR = [c for c in chips.PHILOSOPHIES.values() if c is not hardware.GROQ_LPU]


@pytest.mark.parametrize("index, name", list(enumerate(LESSONS, 1)))
def test_lesson_structure(index, name):
    M3.check_structure(name, f"m3-l{index}", ("**Learning objectives.**", "## Key terms", "## Summary", "Errata"))


def test_lesson1_ridge_points():
    text = M3.markdown(LESSONS[0])
    # "about 1 FLOP per byte. That is far below the ridge points of the three chips with HBM or GDDR memory"
    assert "about 1 FLOP per byte" in text and "three\nchips with HBM or GDDR" in text
    assert roofline.matmul_intensity(1, LLAMA2_70B.d_model, LLAMA2_70B.d_ff, 2) == pytest.approx(1, rel=0.01)
    assert len(HBM_OR_GDDR) == 3 and all(c.ridge_point > 100 for c in HBM_OR_GDDR)
    # "The Groq chip's ridge point (printed above) is near 2 FLOP/byte": not far above batch-1 decode
    assert "near 2 FLOP/byte" in text and 2 <= hardware.GROQ_LPU.ridge_point < 3


def test_lesson1_groq_is_taught_as_a_hypothesis_with_evidence():
    text = M3.markdown(LESSONS[0])
    # "about 300 tokens/s per user on Llama 2 70B", "230 MB of SRAM per chip", "the 80 layers are spread over
    # hundreds of chips"
    assert "about 300 tokens/s per user on Llama 2 70B" in text
    assert max(s.tokens_per_s for s in chips.GROQ_70B_SPEEDS if s.model == "Llama 2 70B") == 300
    assert "230 MB of SRAM per chip" in text and hardware.GROQ_LPU.memory_gb * 1e3 == pytest.approx(230)
    groq = next(r for r in chips.compare_philosophies() if r.chip == hardware.GROQ_LPU.name)
    assert "the 80 layers are spread over" in text and LLAMA2_70B.n_layers == 80 and 100 <= groq.n_chips < 1000
    # the cause is a candidate, and software alone moved the figure "several times"
    assert "One candidate explanation" in text and "several times faster with new software alone" in text
    assert min(chips.software_speedups().values()) >= 3
    assert "the gap names the real bottleneck" not in text


def test_lesson1_a100_l2():
    # "The A100's L2 cache is 40 MB (NVIDIA A100 whitepaper)"
    assert "The A100's L2 cache is 40 MB" in M3.markdown(LESSONS[0]) and chips.A100_L2_MB == 40


def test_lesson2_gqa_context_and_variants():
    text = M3.markdown(LESSONS[1])
    # "Llama 2 70B uses 8 KV heads for 64 query heads"; "without GQA (64 KV heads) it would be 64 / 8 times larger"
    assert "Llama 2 70B uses 8 KV heads for 64 query heads" in text
    assert (LLAMA2_70B.n_kv_heads, LLAMA2_70B.n_heads) == (8, 64)
    assert "without it the same cache is 8x larger" in text and kvcache.gqa_reduction(64, 8) == 8
    # "(128K tokens is beyond Llama 2's trained context of 4K ... Llama 3.1 70B ... does support 128K.)"
    assert LLAMA2_70B.max_context == 4096 and LLAMA31_70B.max_context == 131072
    # the source's "can exceed 50 GB": the cache computed is "*below* 50 GB"
    assert "*below* 50 GB" in text and kvcache.model_kv_bytes_per_session("Llama 3.1 70B", 131072) < 50e9
    # "each with 94 GB of HBM3 (188 GB is the pair)"
    assert "94 GB of HBM3 (188 GB is the pair)" in text and hardware.H100_NVL.memory_gb == 94
    # variants named: "the A100 80GB and the **H100 PCIe** have 80 GB of HBM2e, while the **H100 SXM** has 80 GB of HBM3"
    assert "**H100 PCIe**\n> have 80 GB of HBM2e" in text and "**H100 SXM** has 80 GB of HBM3" in text
    assert "HBM2e" in hardware.H100_PCIE.source and "HBM3" in hardware.H100_SXM.source
    assert "is also off for the H100" not in text
    # "PCIe 5.0 x16 carries about 64 GB/s each way"
    assert "PCIe 5.0 x16 carries about 64 GB/s each way" in text and hardware.PCIE5_X16.one_way_gbs == 64


def test_lesson3_precision_halves_and_quarters_bytes():
    text = M3.markdown(LESSONS[2])
    # "Storing weights in INT8 halves the bytes of BF16, INT4 quarters them"
    assert "INT8 halves the bytes of BF16, INT4 quarters them" in text
    bf16, int8, int4 = (chips.decode_tokens_per_s_bound("Llama 2 70B", hardware.H100_SXM.name, bytes_per_param=b)
                        for b in (2, 1, 0.5))
    assert int8 / bf16 == pytest.approx(2) and int4 / bf16 == pytest.approx(4)


def test_lesson1_inference_silicon_of_2025_2026_prose_matches_the_numbers():
    from coursekit.calc import survey

    text = " ".join(" ".join(c.source for c in M3.nb("01-design-axes-and-chips").cells if c.cell_type == "markdown").split())
    # "one Ironwood, MI325X, MI355X or Blackwell GPU holds the whole 70B model at BF16 (...; an H100 needs two),
    # while TPU v6e, Trainium2 and Inferentia2, with 32 to 103 GB each, still need several"
    assert "holds the whole 70B model at BF16" in text and "an H100 needs two" in text
    for chip in ("Google TPU7x (Ironwood)", "AMD Instinct MI325X", "AMD Instinct MI355X",
                 "NVIDIA GB200 NVL72 (one Blackwell GPU)", "NVIDIA GB300 NVL72 (one Blackwell Ultra GPU)"):
        assert survey.chips_to_serve(chip, LLAMA2_70B.name) == 1, chip
    assert survey.chips_to_serve("NVIDIA H100 SXM", LLAMA2_70B.name) == 2
    assert "TPU v6e, Trainium2 and Inferentia2, with 32 to 103 GB each, still need several" in text
    several = (hardware.TPU_V6E, hardware.TRAINIUM2, hardware.INFERENTIA2)
    assert all(survey.chips_to_serve(c.name, LLAMA2_70B.name) > 1 for c in several)
    assert (min(c.memory_gb for c in several), round(max(c.memory_gb for c in several))) == (32, 103)
    assert "every HBM chip now holds" not in text.split("Errata (this course's earlier text)")[0]
    # "the batch-1 bound is tens of tokens a second per user on the fewest chips" (HBM chips)
    rows = [survey.serving_row(c, LLAMA2_70B.name) for c in survey.INFERENCE_SILICON]
    for r in rows:
        if r["kind"] in ("sram-lpu", "wafer-sram"):
            # "hundreds of thousands of tokens a second"; "their ridge point is a few FLOP per byte"
            assert 1e5 < r["decode_bound_tps"] < 1e6 and r["ridge"] < 10, r["chip"]
        else:
            assert 10 < r["decode_bound_tps"] < 100, r["chip"]
    # "about 600 Groq chips or 4 wafers"
    assert "about 600 Groq chips or 4 wafers" in text
    assert survey.chips_to_serve("Groq LPU (GroqChip 1)", LLAMA2_70B.name) == 600
    assert survey.chips_to_serve("Cerebras WSE-3", LLAMA2_70B.name) == 4
    # "far above any speed they are measured at": the fastest published Groq 70B speed
    assert max(s.tokens_per_s for s in chips.GROQ_70B_SPEEDS) * 100 < min(r["decode_bound_tps"] for r in rows if r["ridge"] < 10)
    # "192 GiB (206 GB) of HBM", "pods of 9,216 chips", "44 GB of on-wafer SRAM at 21 PB/s", "230 MB per chip", "256 and 288 GB"
    assert "192 GiB (206 GB) of HBM" in text and hardware.TPU_IRONWOOD.memory_gb == pytest.approx(192 * 2**30 / 1e9)
    assert round(hardware.TPU_IRONWOOD.memory_gb) == 206
    assert "pods of 9,216 chips" in text and hardware.IRONWOOD_POD.n_chips == 9216
    assert "44 GB of on-wafer SRAM at 21 PB/s" in text and hardware.CEREBRAS_WSE3.memory_tbs == 21_000
    assert "230 MB per chip" in text and hardware.GROQ_LPU.memory_gb == 0.23
    assert "(256 and 288 GB of HBM)" in text and (hardware.MI325X.memory_gb, hardware.MI355X.memory_gb) == (256, 288)


def test_lesson1_prints_no_throughput_at_a_batch_that_does_not_fit(monkeypatch):
    """Run the lesson's code (figures off screen) with chips.decode_throughput recording every call: each
    batch it is asked for must fit beside the weights on that deployment, as the lesson's lines and prices claim."""
    import matplotlib

    matplotlib.use("Agg")
    from coursekit import figures
    from coursekit.calc.kvcache import model_by_name, model_kv_bytes_per_session

    asked, real = [], chips.decode_throughput

    def recording(model, chip, batch, n_chips=1, bytes_per_param=2, context_tokens=0, usable_frac=0.9):
        c = hardware.BY_NAME[chip]
        fits = chips.batch_that_fits(n_chips * c.memory_gb * 1e9 * usable_frac,
                                     model_by_name(model).n_params * bytes_per_param,
                                     model_kv_bytes_per_session(model, context_tokens) if context_tokens else 0.0)
        asked.append((chip, batch, fits))
        return real(model, chip, batch, n_chips, bytes_per_param, context_tokens, usable_frac)

    monkeypatch.setattr(chips, "decode_throughput", recording)
    monkeypatch.setattr(figures, "show_figure", lambda fig, alt: None)
    scope = {}
    for cell in M3.nb("01-design-axes-and-chips").cells:
        if cell.cell_type == "code" and "exercise(" not in cell.source and "show_quiz" not in cell.source:
            exec(cell.source.replace("from coursekit.figures import show_figure", "show_figure = lambda fig, alt: None"),
                 scope)
    assert asked, "the lesson no longer plots or prices throughput"
    assert all(fits is not None and batch <= fits for _, batch, fits in asked), asked
    # "only 12 sessions of 4,096 tokens fit beside the INT8 weights in 90% of memory"
    assert {r.max_batch for r in scope["rows"] if r.chip != hardware.GROQ_LPU.name} == {12}
    assert "only 12 sessions of 4,096 tokens fit beside the INT8 weights in 90% of memory" in " ".join(
        M3.markdown("01-design-axes-and-chips").replace("\n>", "\n").split())
    # Asking for more than fits gives what fits: a batch that is not served adds no throughput
    big = real("Llama 2 70B", "NVIDIA L40S", 256, n_chips=2, bytes_per_param=1, context_tokens=4096)
    assert big == real("Llama 2 70B", "NVIDIA L40S", 12, n_chips=2, bytes_per_param=1, context_tokens=4096)
